import type { Principal, Tenant } from '#common';
import type { BatchEntity } from '../batches/batch.entity.js';
import type { WorkKind, WorkLifecycle, WorkRecord } from './work-lifecycle.js';

/**
 * A kind's work as API callers reach it, the same for every kind: each call
 * is the lifecycle's, for the kind (WorkKind). A kind's service extends it
 * with what only it offers (a session's sketches, a template).
 */
export abstract class WorkService<W extends WorkRecord, I> {
  protected constructor(
    protected readonly lifecycle: WorkLifecycle,
    protected readonly kind: WorkKind<W>,
  ) {}

  /** Creates the work with its created event in one transaction (WorkLifecycle.create). */
  async create(tenant: Tenant, input: I, requestId: string | null): Promise<W> {
    const { created } = await this.lifecycle.create(this.kind, tenant, [input], requestId, false);
    return created[0]!;
  }

  /** Creates a batch of work with its events in one transaction: all of it or none. */
  async createBatch(
    tenant: Tenant,
    inputs: readonly I[],
    requestId: string | null,
  ): Promise<{ batch: BatchEntity; created: W[] }> {
    const { batch, created } = await this.lifecycle.create(
      this.kind,
      tenant,
      inputs,
      requestId,
      true,
    );
    return { batch: batch!, created };
  }

  /** The work with that public id in the caller's organisation and mode, else NOT_FOUND. */
  get(tenant: Tenant, publicId: string): Promise<W> {
    return this.lifecycle.find(this.kind, tenant, publicId);
  }

  /** The work of a batch (found by BatchRecords, in the batch's tenant), in the order of the request. */
  batchItems(batch: BatchEntity): Promise<W[]> {
    return this.kind.table.batchItems(batch, batch.id);
  }

  /** Cancels work that has not finished (WorkLifecycle.cancel). */
  cancel(tenant: Tenant, publicId: string, requestId: string | null): Promise<W> {
    return this.lifecycle.cancel(this.kind, tenant, publicId, requestId);
  }

  /** Deletes the work, its events redacted and the deletion audited (WorkLifecycle.delete). */
  delete(principal: Principal, publicId: string): Promise<void> {
    return this.lifecycle.delete(this.kind, principal, publicId);
  }
}
