import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable, type Transaction } from '#database';

/** A key's first request, as a duplicate compares itself with it, and its response once stored. */
export interface IdempotencyKeyRecord {
  caller: string;
  route: string;
  requestHash: string;
  /** Null while the first request runs. */
  responseStatus: number | null;
  responseSealed: string | null;
  requestId: string;
}

/** What a claim stores of the first request. */
export type IdempotencyClaim = Pick<
  IdempotencyKeyRecord,
  'caller' | 'route' | 'requestHash' | 'requestId'
>;

/** The `idempotency_keys` table: a tenant's keys, each claimed by one request. */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Inserts the claim, or takes over an expired record of the same key; false
   * when a live record holds it. The primary key makes exactly one of
   * concurrent claims win.
   */
  async claim(
    tx: Transaction,
    tenant: Tenant,
    key: string,
    claim: IdempotencyClaim,
    windowHours: number,
  ): Promise<boolean> {
    const claimed = await tx.rows(
      `INSERT INTO idempotency_keys (organization_id, mode, key, caller, route, request_hash, request_id, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(hours => $8))
         ON CONFLICT (organization_id, mode, key) DO UPDATE
           SET caller = EXCLUDED.caller, route = EXCLUDED.route, request_hash = EXCLUDED.request_hash,
               request_id = EXCLUDED.request_id, response_status = NULL, response_sealed = NULL,
               created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE idempotency_keys.expires_at < now()
         RETURNING 1`,
      [
        tenant.organizationId,
        tenant.mode,
        key,
        claim.caller,
        claim.route,
        claim.requestHash,
        claim.requestId,
        windowHours,
      ],
    );
    return claimed.length > 0;
  }

  async find(
    tenant: Tenant,
    key: string,
    on: Queryable = this.sql,
  ): Promise<IdempotencyKeyRecord | null> {
    const [row] = await on.rows<{
      caller: string;
      route: string;
      request_hash: string;
      response_status: number | null;
      response_sealed: string | null;
      request_id: string;
    }>(
      `SELECT caller, route, request_hash, response_status, response_sealed, request_id
           FROM idempotency_keys WHERE organization_id = $1 AND mode = $2 AND key = $3`,
      [tenant.organizationId, tenant.mode, key],
    );
    if (!row) return null;
    return {
      caller: row.caller,
      route: row.route,
      requestHash: row.request_hash,
      responseStatus: row.response_status,
      responseSealed: row.response_sealed,
      requestId: row.request_id,
    };
  }

  /** Stores the first request's response (sealed by the caller). */
  async complete(
    tx: Transaction,
    tenant: Tenant,
    key: string,
    status: number,
    sealed: string,
  ): Promise<void> {
    await tx.query(
      `UPDATE idempotency_keys SET response_status = $4, response_sealed = $5
        WHERE organization_id = $1 AND mode = $2 AND key = $3`,
      [tenant.organizationId, tenant.mode, key, status, sealed],
    );
  }

  /** Deletes the key while its first request has stored no response. */
  async release(tx: Transaction, tenant: Tenant, key: string): Promise<void> {
    await tx.query(
      `DELETE FROM idempotency_keys
        WHERE organization_id = $1 AND mode = $2 AND key = $3 AND response_status IS NULL`,
      [tenant.organizationId, tenant.mode, key],
    );
  }

  /** Deletes every tenant's records past their window; returns how many. */
  async deleteExpiredAcrossTenants(tx: Transaction): Promise<number> {
    const gone = await tx.rows(
      'DELETE FROM idempotency_keys WHERE expires_at < now() RETURNING 1',
      [],
    );
    return gone.length;
  }
}
