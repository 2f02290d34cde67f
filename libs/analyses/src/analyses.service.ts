import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Principal, type Tenant } from '#common';
import { Sql, type Transaction } from '#database';
import { EngineRegistry } from '#engines';
import { EventLog, recordAudit } from '#events';
import {
  assertRunningWorkWithin,
  OrganizationLimitsCache,
  type ConcurrentWorkKind,
  type OrganizationLimits,
} from '#organizations';
import { BatchRecords, type BatchEntity } from '#work';
import { AnalysesRepository, ANALYSIS_RUNNING_STATUSES } from './analyses.repository.js';
import { AnalysisEstimates } from './analysis-estimates.js';
import { type AnalysisTaskingRequest, AnalystAnalyses } from './analyst-analyses.js';
import { analysisCreatedData, analysisFailedData } from './analysis-events.js';
import { descriptionKey, requestFingerprint, type NewAnalysis } from './analysis-request.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';

/**
 * Analyses hold a place of their own pool, the size of the plan's concurrent
 * sessions, while queued or processing: a backlog of analyses never blocks
 * sessions, nor the other way round.
 */
export const CONCURRENT_ANALYSES: ConcurrentWorkKind = {
  running: ANALYSIS_RUNNING_STATUSES,
  noun: 'analyses',
  field: 'concurrent_analyses',
};

/** Target analyses as API callers see them; the work itself is done by the worker (AnalysisRunner). */
@Injectable()
export class AnalysesService {
  constructor(
    private readonly sql: Sql,
    private readonly analyses: AnalysesRepository,
    private readonly events: EventLog,
    private readonly limits: OrganizationLimitsCache,
    private readonly engines: EngineRegistry,
    private readonly estimates: AnalysisEstimates,
    private readonly batches: BatchRecords,
    private readonly analysts: AnalystAnalyses,
  ) {}

  /** Queues the analysis with its `analysis.created` event in one transaction. */
  async create(
    tenant: Tenant,
    input: NewAnalysis,
    requestId: string | null,
  ): Promise<AnalysisEntity> {
    const { analyses } = await this.createMany(tenant, [input], requestId, false);
    return analyses[0]!;
  }

  /** Queues a batch of analyses with their events in one transaction: all of them or none. */
  async createBatch(
    tenant: Tenant,
    inputs: readonly NewAnalysis[],
    requestId: string | null,
  ): Promise<{ batch: BatchEntity; analyses: AnalysisEntity[] }> {
    const { batch, analyses } = await this.createMany(tenant, inputs, requestId, true);
    return { batch: batch!, analyses };
  }

  /**
   * Each analysis is done by the engine its request asks for (AnalystAnalyses.engineFor):
   * a batch's items are tasked one by one, each with its own tasking fields.
   */
  private async createMany(
    tenant: Tenant,
    inputs: readonly NewAnalysis[],
    requestId: string | null,
    asBatch: boolean,
  ): Promise<{ batch: BatchEntity | null; analyses: AnalysisEntity[] }> {
    const simulated = this.engines.engineFor('analysis', tenant.mode);
    const defaults = new Map<string | undefined, Promise<'simulated' | 'analyst'>>();
    const engineOf = (requested: 'simulated' | 'analyst' | undefined) => {
      if (!defaults.has(requested)) {
        defaults.set(requested, this.analysts.engineFor(tenant, requested));
      }
      return defaults.get(requested)!;
    };
    // Read before the transaction: a cache miss or a query inside it would wait for a
    // second pool connection while holding one, and a burst of submits would deadlock the pool.
    const engines = await Promise.all(inputs.map((input) => engineOf(input.people?.engine)));
    const tasking: (AnalysisTaskingRequest | null)[] = [];
    for (const [i, input] of inputs.entries()) {
      tasking.push(
        engines[i] === 'analyst'
          ? await this.analysts.prepare(tenant, input.people, asBatch ? `analyses.${i}.` : '')
          : null,
      );
    }
    const [limits, estimates] = await Promise.all([
      this.limits.get(tenant.organizationId),
      this.estimates.estimate(
        inputs.map((input) => ({
          analysisType: input.analysisType,
          priority: input.priority,
          stepCount: this.engines.analysis(simulated).plan(requestOf(input), '').steps.length,
          materialCount:
            input.referenceMaterial.photos.length + input.referenceMaterial.documents.length,
        })),
      ),
    ]);
    return this.sql.transaction(async (tx) => {
      const batch = asBatch
        ? await this.batches.insert(tx, tenant, 'analyses', inputs.length, requestId)
        : null;
      const analyses: AnalysisEntity[] = [];
      for (const [i, input] of inputs.entries()) {
        const people = tasking[i];
        const analysis = await this.insert(
          tx,
          tenant,
          input,
          people ? 'analyst' : simulated,
          estimates[i]!,
          requestId,
          batch?.id ?? null,
        );
        if (people) await this.analysts.task(tx, tenant, analysis, people, requestId);
        analyses.push(analysis);
      }
      await this.assertWithinLimit(tx, tenant, limits);
      return { batch, analyses };
    });
  }

  /** 429 when the analyses just inserted take the tenant over its plan's concurrent analyses. */
  private assertWithinLimit(
    tx: Transaction,
    tenant: Tenant,
    limits: OrganizationLimits | null,
  ): Promise<void> {
    return assertRunningWorkWithin(limits, CONCURRENT_ANALYSES, {
      countLocked: (atMost) => this.analyses.countRunningLocked(tx, tenant, atMost),
      nextCompletion: () => this.analyses.nextCompletion(tenant, tx),
    });
  }

  private async insert(
    tx: Transaction,
    tenant: Tenant,
    input: NewAnalysis,
    engine: string,
    estimatedCompletion: Date,
    requestId: string | null,
    batchId: string | null,
  ): Promise<AnalysisEntity> {
    const now = new Date();
    const coordinates = input.referenceMaterial.coordinates;
    const analysis: AnalysisEntity = {
      id: newUuid(),
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      targetType: input.targetType,
      analysisType: input.analysisType,
      priority: input.priority,
      description: input.description,
      descriptionKey: descriptionKey(input.description),
      referenceMaterial: input.referenceMaterial,
      latitude: coordinates?.latitude ?? null,
      longitude: coordinates?.longitude ?? null,
      requestFingerprint: requestFingerprint(input),
      material: null,
      earlierWork: null,
      status: 'queued',
      stepsDone: 0,
      steps: null,
      engine,
      engineVersion: null,
      engineSeed: null,
      results: null,
      scoreDetails: null,
      confidenceScore: null,
      evidence: null,
      failureReason: null,
      failureMessage: null,
      eventSequence: 1,
      createdAt: now,
      updatedAt: now,
      startedAt: null,
      completedAt: null,
      estimatedCompletion,
      batchId,
    };
    await this.analyses.insert(tx, tenant, analysis);
    await this.events.append(
      tx,
      tenant,
      'analysis.created',
      analysisCreatedData(analysis),
      requestId,
    );
    return analysis;
  }

  /** The analysis with that public id in the caller's organisation and mode, else NOT_FOUND. */
  async get(tenant: Tenant, publicId: string): Promise<AnalysisEntity> {
    const uuid = parsePublicId('analysis', publicId);
    const analysis = uuid === null ? null : await this.analyses.find(tenant, uuid);
    if (!analysis) throw AppError.notFound('analysis', publicId);
    return analysis;
  }

  /** The analyses of a batch (found by BatchRecords, in the batch's tenant), in the order of the request. */
  batchItems(batch: BatchEntity): Promise<AnalysisEntity[]> {
    return this.analyses.batchItems(batch, batch.id);
  }

  /**
   * Cancels an analysis that has not finished: it becomes `failed` with
   * reason `cancelled` and `analysis.failed` announces it, in one
   * transaction. The runner's next step sees the stored state and stops.
   */
  async cancel(
    tenant: Tenant,
    publicId: string,
    requestId: string | null,
  ): Promise<AnalysisEntity> {
    const uuid = parsePublicId('analysis', publicId);
    if (uuid === null) throw AppError.notFound('analysis', publicId);
    return this.sql.transaction(async (tx) => {
      const current = await this.analyses.findForUpdate(tx, tenant, uuid);
      if (!current) throw AppError.notFound('analysis', publicId);
      if (current.status === 'completed' || current.status === 'failed') {
        throw new AppError('CONFLICT', `Analysis ${publicId} has already ${current.status}`, {
          field: 'status',
          issue: `only queued or processing analyses can be cancelled; this one is ${current.status}`,
        });
      }
      const failedAt = new Date();
      await this.analysts.cancelled(tx, current, requestId);
      const cancelled: AnalysisEntity = {
        ...current,
        status: 'failed',
        failureReason: 'cancelled',
        failureMessage: 'The analysis was cancelled',
        completedAt: failedAt,
        eventSequence: current.eventSequence + 1,
        updatedAt: failedAt,
      };
      await this.analyses.markFailed(tx, tenant, uuid, {
        reason: cancelled.failureReason!,
        message: cancelled.failureMessage!,
        failedAt,
        sequence: cancelled.eventSequence,
      });
      await this.events.append(
        tx,
        tenant,
        'analysis.failed',
        analysisFailedData(
          cancelled,
          cancelled.failureReason!,
          cancelled.failureMessage!,
          cancelled.eventSequence,
        ),
        requestId,
      );
      return cancelled;
    });
  }

  /**
   * Deletes an analysis in one transaction: its row (results, material read)
   * goes; its events in the log shrink to the analysis id and sequence, so
   * replays and pending deliveries carry nothing of it; an audit record keeps
   * who deleted it, when, and in which request. A running analysis stops at
   * its next step.
   */
  async delete(principal: Principal, publicId: string, requestId: string | null): Promise<void> {
    const uuid = parsePublicId('analysis', publicId);
    if (uuid === null) throw AppError.notFound('analysis', publicId);
    await this.sql.transaction(async (tx) => {
      const createdAt = await this.analyses.delete(tx, principal, uuid);
      if (createdAt === null) throw AppError.notFound('analysis', publicId);
      await this.analysts.forget(tx, principal, uuid);
      await this.events.redact(tx, principal, 'analysis_id', publicId, createdAt);
      await recordAudit(tx, principal, 'analysis.deleted', publicId, requestId);
    });
  }
}

/** The engine's view of a request, before any work. */
export function requestOf(input: NewAnalysis) {
  return {
    targetType: input.targetType,
    analysisType: input.analysisType,
    description: input.description,
    coordinates: input.referenceMaterial.coordinates,
    photoCount: input.referenceMaterial.photos.length,
    documentCount: input.referenceMaterial.documents.length,
  };
}
