import { Injectable } from '@nestjs/common';
import {
  keysetPage,
  rowMapping,
  Sql,
  SqlConditions,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import type { ScimTokenEntity } from './scim-token.entity.js';

/** A SCIM token as everything past this repository sees it: never its hash. */
export type ScimToken = Omit<ScimTokenEntity, 'tokenHash'>;

type ScimTokenColumn =
  'id' | 'organization_id' | 'name' | 'token_hash' | 'created_at' | 'last_used_at' | 'revoked_at';

type ShownColumn = Exclude<ScimTokenColumn, 'token_hash'>;
type ShownRow = Record<ShownColumn, unknown>;

/** Every column but the hash, each with its field: what reads select. */
const SHOWN_FIELDS: Record<ShownColumn, keyof ScimToken> = {
  id: 'id',
  organization_id: 'organizationId',
  name: 'name',
  created_at: 'createdAt',
  last_used_at: 'lastUsedAt',
  revoked_at: 'revokedAt',
};
const SHOWN = rowMapping<ScimToken, ShownColumn>('scim_tokens', SHOWN_FIELDS);

/**
 * The `scim_tokens` table. A token is its organisation's (SCIM reaches
 * people, who belong to both modes), so methods take the organisation. An
 * identity provider's call presents a token before anyone knows whose it
 * is: that look-up, by hash, crosses organisations on purpose.
 */
@Injectable()
export class ScimTokensRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Takes the organisation's lock on its tokens until `tx` ends, then counts
   * the live ones: concurrent creates serialise on it, so the limit holds.
   */
  async countLiveLocked(tx: Transaction, organizationId: string): Promise<number> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `scim_tokens:${organizationId}`,
    ]);
    const [{ count }] = (await tx.rows<{ count: number }>(
      `SELECT count(*)::int AS count FROM scim_tokens
        WHERE organization_id = $1 AND revoked_at IS NULL`,
      [organizationId],
    )) as [{ count: number }];
    return count;
  }

  /** A new token of the organisation (whatever organisation `token` names). */
  async insert(tx: Transaction, organizationId: string, token: ScimTokenEntity): Promise<void> {
    await tx.query(
      `INSERT INTO scim_tokens (id, organization_id, name, token_hash, created_at, last_used_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        token.id,
        organizationId,
        token.name,
        token.tokenHash,
        token.createdAt,
        token.lastUsedAt,
        token.revokedAt,
      ],
    );
  }

  /** A keyset page of the organisation's tokens, revoked ones too, newest first. */
  page(organizationId: string, request: PageRequest): Promise<KeysetPage<ScimToken>> {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param(organizationId)}`);
    return keysetPage(
      (text, parameters) => this.sql.rows(text, parameters),
      {
        table: 'scim_tokens',
        where,
        scope: { organization_id: organizationId },
        readRows: async (idsSql, parameters) =>
          (
            await this.sql.rows<ShownRow>(
              `SELECT ${SHOWN.selectList} FROM scim_tokens WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map((row) => SHOWN.fromRow(row)),
      },
      request,
    );
  }

  /** One of the organisation's tokens, locked until `tx` ends (a revocation decides on it). */
  async findForUpdate(
    tx: Transaction,
    organizationId: string,
    id: string,
  ): Promise<ScimToken | null> {
    const [row] = await tx.rows<ShownRow>(
      `SELECT ${SHOWN.selectList} FROM scim_tokens
        WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
      [id, organizationId],
    );
    return row ? SHOWN.fromRow(row) : null;
  }

  async revoke(tx: Transaction, organizationId: string, id: string, at: Date): Promise<void> {
    await tx.query(
      `UPDATE scim_tokens SET revoked_at = $3 WHERE id = $1 AND organization_id = $2`,
      [id, organizationId, at],
    );
  }

  /** The token whose SHA-256 this is, in whichever organisation: how a presented token is resolved. */
  async findByHashAcrossTenants(hash: Buffer, on: Queryable = this.sql): Promise<ScimToken | null> {
    const [row] = await on.rows<ShownRow>(
      `SELECT ${SHOWN.selectList} FROM scim_tokens WHERE token_hash = $1`,
      [hash],
    );
    return row ? SHOWN.fromRow(row) : null;
  }

  /**
   * Notes that the token was used, unless that was noted less than a minute
   * ago: a busy identity provider writes the row once a minute, not per call,
   * and instances racing each other write it once between them.
   */
  async recordUse(organizationId: string, id: string, on: Queryable = this.sql): Promise<void> {
    await on.query(
      `UPDATE scim_tokens SET last_used_at = now()
        WHERE id = $1 AND organization_id = $2
          AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [id, organizationId],
    );
  }
}
