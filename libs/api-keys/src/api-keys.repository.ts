import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { rowMapping, Sql, type Queryable, type Transaction } from '#database';
import type { ApiKeyEntity } from './api-key.entity.js';

const API_KEY = rowMapping<ApiKeyEntity, ApiKeyColumn>('api_keys', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  name: 'name',
  secret_hash: 'secretHash',
  display_prefix: 'displayPrefix',
  scopes: 'scopes',
  created_by: 'createdBy',
  created_at: 'createdAt',
  expires_at: 'expiresAt',
  last_used_at: 'lastUsedAt',
  revoked_at: 'revokedAt',
});

type ApiKeyColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'name'
  | 'secret_hash'
  | 'display_prefix'
  | 'scopes'
  | 'created_by'
  | 'created_at'
  | 'expires_at'
  | 'last_used_at'
  | 'revoked_at';

type ApiKeyRow = Record<ApiKeyColumn, unknown>;

/** The `api_keys` table: a tenant's keys, and a key found by its hash (whoever presents it). */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly sql: Sql) {}

  /** A new key of the tenant (whatever tenant `key` names). */
  async insert(tx: Transaction, tenant: Tenant, key: ApiKeyEntity): Promise<void> {
    await tx.query(
      API_KEY.insert,
      API_KEY.toRow({ ...key, organizationId: tenant.organizationId, mode: tenant.mode }),
    );
  }

  /** A page of the tenant's keys, newest first, with how many there are. */
  async page(
    tenant: Tenant,
    page: { limit: number; offset: number },
    on: Queryable = this.sql,
  ): Promise<{ records: ApiKeyEntity[]; total: number }> {
    const [rows, [count]] = await Promise.all([
      on.rows<ApiKeyRow>(
        `SELECT ${API_KEY.selectList} FROM api_keys WHERE organization_id = $1 AND mode = $2
          ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [tenant.organizationId, tenant.mode, page.limit, page.offset],
      ),
      on.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM api_keys WHERE organization_id = $1 AND mode = $2`,
        [tenant.organizationId, tenant.mode],
      ),
    ]);
    return { records: rows.map((row) => API_KEY.fromRow(row)), total: count!.total };
  }

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<ApiKeyEntity | null> {
    const [row] = await on.rows<ApiKeyRow>(
      `SELECT ${API_KEY.selectList} FROM api_keys
        WHERE id = $1 AND organization_id = $2 AND mode = $3 LIMIT 1`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? API_KEY.fromRow(row) : null;
  }

  /** The key whose SHA-256 this is, in whichever tenant: how a presented key is resolved. */
  async findByHashAcrossTenants(
    hash: Buffer,
    on: Queryable = this.sql,
  ): Promise<ApiKeyEntity | null> {
    const [row] = await on.rows<ApiKeyRow>(
      `SELECT ${API_KEY.selectList} FROM api_keys WHERE secret_hash = $1 LIMIT 1`,
      [hash],
    );
    return row ? API_KEY.fromRow(row) : null;
  }

  async revoke(tx: Transaction, tenant: Tenant, id: string, at: Date): Promise<void> {
    await tx.query(
      `UPDATE api_keys SET revoked_at = $4 WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode, at],
    );
  }

  async expire(tx: Transaction, tenant: Tenant, id: string, at: Date): Promise<void> {
    await tx.query(
      `UPDATE api_keys SET expires_at = $4 WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode, at],
    );
  }

  async recordUse(tx: Transaction, tenant: Tenant, id: string, at: Date): Promise<void> {
    await tx.query(
      `UPDATE api_keys SET last_used_at = $4
        WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode, at],
    );
  }
}
