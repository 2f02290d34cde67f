import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { rowMapping, Sql, type Queryable, type Transaction } from '#database';
import type { BatchEntity } from './batch.entity.js';

type BatchColumn =
  'id' | 'organization_id' | 'mode' | 'kind' | 'item_count' | 'request_id' | 'created_at';

const BATCH = rowMapping<BatchEntity, BatchColumn>('batches', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  kind: 'kind',
  item_count: 'itemCount',
  request_id: 'requestId',
  created_at: 'createdAt',
});

/** The `batches` table, which every kind of work shares; each method takes the tenant. */
@Injectable()
export class BatchesRepository {
  constructor(private readonly sql: Sql) {}

  async insert(tx: Transaction, tenant: Tenant, batch: BatchEntity): Promise<void> {
    await tx.query(
      BATCH.insert,
      BATCH.toRow({ ...batch, organizationId: tenant.organizationId, mode: tenant.mode }),
    );
  }

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<BatchEntity | null> {
    const [row] = await on.rows<Record<BatchColumn, unknown>>(
      `SELECT ${BATCH.selectList} FROM batches WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? BATCH.fromRow(row) : null;
  }
}
