import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Tenant } from '#common';
import { Sql, type SqlExecutor } from '#database';
import type { BatchEntity, BatchKind } from './entities/batch.entity.js';

/**
 * The `batches` rows every kind of work shares: a batch of sessions or of
 * analyses is created by its own service, in the same transaction as its
 * items, and found here by its public id.
 */
@Injectable()
export class BatchRecords {
  constructor(private readonly sql: Sql) {}

  /** Inserts a new batch of `kind` in the caller's transaction. */
  async insert(
    tx: SqlExecutor,
    tenant: Tenant,
    kind: BatchKind,
    itemCount: number,
    requestId: string | null,
  ): Promise<BatchEntity> {
    const batch: BatchEntity = {
      id: newUuid(),
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      kind,
      itemCount,
      requestId,
      createdAt: new Date(),
    };
    await tx.query(
      `INSERT INTO batches (id, organization_id, mode, kind, item_count, request_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        batch.id,
        batch.organizationId,
        batch.mode,
        batch.kind,
        batch.itemCount,
        requestId,
        batch.createdAt,
      ],
    );
    return batch;
  }

  /** A batch of the caller's organisation and mode, else NOT_FOUND. */
  async find(tenant: Tenant, publicId: string): Promise<BatchEntity> {
    const uuid = parsePublicId('batch', publicId);
    const [batch] =
      uuid === null
        ? []
        : await this.sql.rows<BatchEntity>(
            `SELECT id, organization_id AS "organizationId", mode, kind, item_count AS "itemCount",
                    request_id AS "requestId", created_at AS "createdAt"
               FROM batches WHERE id = $1 AND organization_id = $2 AND mode = $3`,
            [uuid, tenant.organizationId, tenant.mode],
          );
    if (!batch) throw AppError.notFound('batch', publicId);
    return batch;
  }
}
