import { Injectable } from '@nestjs/common';
import { newUuid } from '#common';
import { EngineRegistry } from '#engines';
import type { ConcurrentWorkKind } from '#organizations';
import type { TimedTasking, WorkCreation, WorkKind } from '#work';
import { AnalysesRepository, ANALYSIS_RUNNING_STATUSES } from './analyses.repository.js';
import { AnalysisEstimates } from './analysis-estimates.js';
import { ANALYSIS_IDENTITY, analysisCreatedData } from './analysis-events.js';
import {
  descriptionKey,
  requestFingerprint,
  requestOf,
  type NewAnalysis,
} from './analysis-request.js';
import { AnalystAnalyses } from './analyst-analyses.js';
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

/** Target analyses as a kind of work (libs/work's lifecycle): what only analyses know of it. */
@Injectable()
export class AnalysisKind implements WorkKind<AnalysisEntity> {
  readonly identity = ANALYSIS_IDENTITY;
  readonly concurrency = CONCURRENT_ANALYSES;
  readonly cancelledMessage = 'The analysis was cancelled';
  /** An analysis is queued with its estimated completion (AnalysisEstimates), computed for all items at once. */
  readonly creation: WorkCreation<AnalysisEntity, NewAnalysis, TimedTasking, Date>;

  constructor(
    readonly table: AnalysesRepository,
    engines: EngineRegistry,
    estimates: AnalysisEstimates,
    analysts: AnalystAnalyses,
  ) {
    this.creation = {
      engineKind: 'analysis',
      batchKind: 'analyses',
      batchField: 'analyses.',
      beforeTransaction: (tenant, items) => {
        const simulated = engines.analysis(engines.engineFor('analysis', tenant.mode));
        return estimates.estimate(
          items.map(({ input }) => ({
            analysisType: input.analysisType,
            priority: input.priority,
            stepCount: simulated.plan(requestOf(input), '').steps.length,
            materialCount:
              input.referenceMaterial.photos.length + input.referenceMaterial.documents.length,
          })),
        );
      },
      build: (tenant, { input, engine }, estimatedCompletion, { batchId, now }) => ({
        id: newUuid(),
        organizationId: tenant.organizationId,
        mode: tenant.mode,
        targetType: input.targetType,
        analysisType: input.analysisType,
        priority: input.priority,
        description: input.description,
        descriptionKey: descriptionKey(input.description),
        referenceMaterial: input.referenceMaterial,
        latitude: input.referenceMaterial.coordinates?.latitude ?? null,
        longitude: input.referenceMaterial.coordinates?.longitude ?? null,
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
      }),
      createdEvent: (analysis) => ({
        type: 'analysis.created',
        data: analysisCreatedData(analysis),
      }),
      people: analysts.creating(),
    };
  }
}
