import { Injectable } from '@nestjs/common';
import type { Principal, Tenant } from '#common';
import { WorkLifecycle, type BatchEntity } from '#work';
import { AnalysesRepository } from './analyses.repository.js';
import { AnalysisKind } from './analysis-kind.js';
import type { NewAnalysis } from './analysis-request.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';

/** Target analyses as API callers see them; the work itself is done by the worker (AnalysisRunner). */
@Injectable()
export class AnalysesService {
  constructor(
    private readonly analyses: AnalysesRepository,
    private readonly lifecycle: WorkLifecycle,
    private readonly kind: AnalysisKind,
  ) {}

  /** Queues the analysis with its `analysis.created` event in one transaction (WorkLifecycle.create). */
  async create(
    tenant: Tenant,
    input: NewAnalysis,
    requestId: string | null,
  ): Promise<AnalysisEntity> {
    const { created } = await this.lifecycle.create(this.kind, tenant, [input], requestId, false);
    return created[0]!;
  }

  /**
   * Queues a batch of analyses with their events in one transaction: all of
   * them or none. Each is done by the engine its request asks for, and
   * tasked with its own tasking fields.
   */
  async createBatch(
    tenant: Tenant,
    inputs: readonly NewAnalysis[],
    requestId: string | null,
  ): Promise<{ batch: BatchEntity; analyses: AnalysisEntity[] }> {
    const { batch, created } = await this.lifecycle.create(
      this.kind,
      tenant,
      inputs,
      requestId,
      true,
    );
    return { batch: batch!, analyses: created };
  }

  /** The analysis with that public id in the caller's organisation and mode, else NOT_FOUND. */
  get(tenant: Tenant, publicId: string): Promise<AnalysisEntity> {
    return this.lifecycle.find(this.kind, tenant, publicId);
  }

  /** The analyses of a batch (found by BatchRecords, in the batch's tenant), in the order of the request. */
  batchItems(batch: BatchEntity): Promise<AnalysisEntity[]> {
    return this.analyses.batchItems(batch, batch.id);
  }

  /** Cancels an analysis that has not finished (WorkLifecycle.cancel). */
  cancel(tenant: Tenant, publicId: string, requestId: string | null): Promise<AnalysisEntity> {
    return this.lifecycle.cancel(this.kind, tenant, publicId, requestId);
  }

  /** Deletes an analysis, its events redacted and the deletion audited (WorkLifecycle.delete). */
  delete(principal: Principal, publicId: string, requestId: string | null): Promise<void> {
    return this.lifecycle.delete(this.kind, principal, publicId, requestId);
  }
}

export { requestOf } from './analysis-request.js';
