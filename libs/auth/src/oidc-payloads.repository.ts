import { Injectable } from '@nestjs/common';
import { Sql, type JsonObject, type Queryable, type Transaction } from '#database';

/** One model instance of the authorization server, as `upsert` stores it. */
export interface OidcPayloadEntry {
  kind: string;
  /** The stored key (apps/api's `storedId`: a hash for every bearer secret). */
  id: string;
  payload: JsonObject;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  /** From now; null: never expires. */
  expiresInSeconds: number | null;
}

/** A stored payload that has not expired, and when it was consumed (seconds since the epoch). */
export interface StoredOidcPayload {
  payload: JsonObject;
  consumed: number | null;
}

/** The columns a payload is looked up by. */
type LookupColumn = 'id' | 'uid' | 'user_code';

/**
 * `oidc_payloads`: what the authorization server (oidc-provider, through the
 * API's adapter) stores — grants, codes, refresh tokens, sessions and
 * interactions. Of no tenant: a model instance is found by its (hashed) id.
 */
@Injectable()
export class OidcPayloadsRepository {
  constructor(private readonly sql: Sql) {}

  async upsert(tx: Transaction, entry: OidcPayloadEntry): Promise<void> {
    await tx.query(
      `INSERT INTO oidc_payloads (kind, id, payload, grant_id, uid, user_code, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
       ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
         uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
      [
        entry.kind,
        entry.id,
        entry.payload,
        entry.grantId,
        entry.uid,
        entry.userCode,
        entry.expiresInSeconds,
      ],
    );
  }

  find(kind: string, id: string, on: Queryable = this.sql): Promise<StoredOidcPayload | null> {
    return this.findBy(on, kind, 'id', id);
  }

  findByUid(
    kind: string,
    uid: string,
    on: Queryable = this.sql,
  ): Promise<StoredOidcPayload | null> {
    return this.findBy(on, kind, 'uid', uid);
  }

  findByUserCode(
    kind: string,
    userCode: string,
    on: Queryable = this.sql,
  ): Promise<StoredOidcPayload | null> {
    return this.findBy(on, kind, 'user_code', userCode);
  }

  /**
   * Marks a code or refresh token consumed, one conditional UPDATE: of two
   * requests racing with the same one, exactly one gets true.
   */
  async consume(tx: Transaction, kind: string, id: string): Promise<boolean> {
    const { rows } = await tx.query(
      `UPDATE oidc_payloads SET consumed_at = now()
       WHERE kind = $1 AND id = $2 AND consumed_at IS NULL RETURNING grant_id`,
      [kind, id],
    );
    return rows.length > 0;
  }

  /** The grant a model instance was issued under (expired or not), or null. */
  async grantOf(kind: string, id: string, on: Queryable = this.sql): Promise<string | null> {
    const [row] = await on.rows<{ grant_id: string | null }>(
      'SELECT grant_id FROM oidc_payloads WHERE kind = $1 AND id = $2',
      [kind, id],
    );
    return row?.grant_id ?? null;
  }

  async delete(tx: Transaction, kind: string, id: string): Promise<void> {
    await tx.query('DELETE FROM oidc_payloads WHERE kind = $1 AND id = $2', [kind, id]);
  }

  /** Everything issued under a grant, and the grant itself. */
  async deleteGrant(tx: Transaction, grantId: string): Promise<void> {
    await tx.query(
      `DELETE FROM oidc_payloads WHERE grant_id = $1 OR (kind = 'Grant' AND id = $1)`,
      [grantId],
    );
  }

  /**
   * Everything the authorization server holds for a person — their grants
   * with what was issued under them (refresh tokens, codes), and their
   * sign-in sessions — deleted; the ids of the grants, for the API to refuse
   * access tokens already issued under them. A scan, not an index: it runs
   * when a person is disabled, not per request.
   */
  async deleteOfAccount(tx: Transaction, accountId: string): Promise<string[]> {
    const rows = await tx.rows<{ grant_id: string }>(
      `WITH grants AS (
         SELECT DISTINCT COALESCE(grant_id, CASE WHEN kind = 'Grant' THEN id END) AS grant_id
           FROM oidc_payloads WHERE payload->>'accountId' = $1
       ), gone AS (
         -- A data-modifying WITH runs whether or not the query reads it.
         DELETE FROM oidc_payloads
          WHERE payload->>'accountId' = $1
             OR grant_id IN (SELECT grant_id FROM grants)
             OR (kind = 'Grant' AND id IN (SELECT grant_id FROM grants))
         RETURNING 1
       )
       SELECT grant_id FROM grants WHERE grant_id IS NOT NULL`,
      [accountId],
    );
    return rows.map((row) => row.grant_id);
  }

  /** Deletes every expired instance; how many there were. */
  async deleteExpired(tx: Transaction): Promise<number> {
    const [deleted] = await tx.rows<{ count: string }>(
      `WITH gone AS (DELETE FROM oidc_payloads WHERE expires_at < now() RETURNING 1)
       SELECT count(*) AS count FROM gone`,
    );
    return Number(deleted?.count ?? 0);
  }

  private async findBy(
    on: Queryable,
    kind: string,
    column: LookupColumn,
    value: string,
  ): Promise<StoredOidcPayload | null> {
    const [row] = await on.rows<{ payload: JsonObject; consumed: string | number | null }>(
      `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed FROM oidc_payloads
       WHERE kind = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [kind, value],
    );
    if (!row) return null;
    return { payload: row.payload, consumed: row.consumed === null ? null : Number(row.consumed) };
  }
}
