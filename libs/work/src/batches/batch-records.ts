import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Tenant } from '#common';
import type { Transaction } from '#database';
import { BatchesRepository } from './batches.repository.js';
import type { BatchEntity, BatchKind } from './batch.entity.js';

/**
 * The `batches` rows every kind of work shares: a batch of sessions or of
 * analyses is created by its own service, in the same transaction as its
 * items, and found here by its public id.
 */
@Injectable()
export class BatchRecords {
  constructor(private readonly batches: BatchesRepository) {}

  /** Inserts a new batch of `kind` in the caller's transaction. */
  async insert(
    tx: Transaction,
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
    await this.batches.insert(tx, tenant, batch);
    return batch;
  }

  /** A batch of the caller's organisation and mode, else NOT_FOUND. */
  async find(tenant: Tenant, publicId: string): Promise<BatchEntity> {
    const uuid = parsePublicId('batch', publicId);
    const batch = uuid === null ? null : await this.batches.find(tenant, uuid);
    if (!batch) throw AppError.notFound('batch', publicId);
    return batch;
  }
}
