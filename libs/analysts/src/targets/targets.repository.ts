import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import {
  keysetPage,
  rowMapping,
  Sql,
  tenantConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import type { TargetEntity } from './target.entity.js';

const TARGET = rowMapping<TargetEntity, TargetColumn>('targets', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  description: 'description',
  descriptors: 'descriptors',
  latitude: 'latitude',
  longitude: 'longitude',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
});

type TargetColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'description'
  | 'descriptors'
  | 'latitude'
  | 'longitude'
  | 'created_at'
  | 'updated_at';

type TargetRow = Record<TargetColumn, unknown>;

/**
 * The `targets` table: the tenant's target pool. Every statement is the
 * tenant's; a target of another tenant is no target at all.
 */
@Injectable()
export class TargetsRepository {
  constructor(private readonly sql: Sql) {}

  async insert(tx: Transaction, tenant: Tenant, target: TargetEntity): Promise<void> {
    await tx.query(
      TARGET.insert,
      TARGET.toRow({ ...target, organizationId: tenant.organizationId, mode: tenant.mode }),
    );
  }

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<TargetEntity | null> {
    const [row] = await on.rows<TargetRow>(
      `SELECT ${TARGET.selectList} FROM targets WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? TARGET.fromRow(row) : null;
  }

  async exists(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<boolean> {
    const rows = await on.rows<{ id: string }>(
      `SELECT id FROM targets WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return rows.length > 0;
  }

  /**
   * A keyset page of the tenant's targets, newest first; `complete` turns
   * the page's rows into what the caller lists (their photos added), while
   * the page is counted.
   */
  page<T>(
    tenant: Tenant,
    request: PageRequest,
    complete: (targets: TargetEntity[]) => Promise<T[]>,
    on: Queryable = this.sql,
  ): Promise<KeysetPage<T>> {
    return keysetPage(
      (text, parameters) => on.rows(text, parameters),
      {
        table: 'targets',
        where: tenantConditions(tenant),
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) => {
          const rows = await on.rows<TargetRow>(
            `SELECT ${TARGET.selectList} FROM targets WHERE id IN (${idsSql})
              ORDER BY created_at DESC, id DESC`,
            parameters,
          );
          return complete(rows.map((row) => TARGET.fromRow(row)));
        },
      },
      request,
    );
  }

  /** Deletes the target (its photos go with it); false when the tenant has no such target. */
  async delete(tx: Transaction, tenant: Tenant, id: string): Promise<boolean> {
    const deleted = await tx.rows<{ id: string }>(
      `DELETE FROM targets WHERE id = $1 AND organization_id = $2 AND mode = $3 RETURNING id`,
      [id, tenant.organizationId, tenant.mode],
    );
    return deleted.length > 0;
  }

  /** How many targets the tenant's pool holds, not counting `excludeId`. */
  async count(tenant: Tenant, excludeId: string | null, on: Queryable = this.sql): Promise<number> {
    const [row] = await on.rows<{ count: number }>(
      `SELECT count(*)::int AS count FROM targets
        WHERE organization_id = $1 AND mode = $2 AND ($3::uuid IS NULL OR id <> $3::uuid)`,
      [tenant.organizationId, tenant.mode, excludeId],
    );
    return row!.count;
  }

  /**
   * Up to `count` of the tenant's targets drawn uniformly at random without
   * replacement, never `excludeId`.
   */
  async drawAtRandom(
    tenant: Tenant,
    count: number,
    excludeId: string | null,
    on: Queryable = this.sql,
  ): Promise<TargetEntity[]> {
    const rows = await on.rows<TargetRow>(
      `SELECT ${TARGET.selectList} FROM targets
        WHERE organization_id = $1 AND mode = $2 AND ($3::uuid IS NULL OR id <> $3::uuid)
        ORDER BY random() LIMIT $4`,
      [tenant.organizationId, tenant.mode, excludeId, count],
    );
    return rows.map((row) => TARGET.fromRow(row));
  }
}
