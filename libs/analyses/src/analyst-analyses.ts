import { Injectable } from '@nestjs/common';
import { combineSubmissions, pooledTrials, type SubmissionProgress, type Tasking } from '#analysts';
import { toPublicId, type Tenant } from '#common';
import type { Transaction } from '#database';
import { ANALYSIS_DEFAULT_BASELINE, type AnalysisScoreDetails } from '#engines';
import { EventLog } from '#events';
import type { VerifiedRecordQuery } from '#history';
import {
  AnalystLifecycle,
  type BlindBrief,
  type CompletionInputs,
  TimedAnalystKindService,
} from '#work';
import { AnalysesRepository } from './analyses.repository.js';
import {
  analysisCompletedData,
  ANALYSIS_IDENTITY,
  analysisProgressData,
  analysisStartedData,
} from './analysis-events.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';
import { agreementOf, analysisResultsFrom } from './analyst-analysis-results.js';

/** The version the `analyst` engine records with its work (as for sessions). */
export const ANALYST_ANALYSIS_ENGINE_VERSION = 'analyst-1';

/**
 * An analyst analysis's plan as stored: ten equal `analyst_work` steps, so
 * `progress` (steps done of the plan) is the share of analysts who have
 * submitted in whole 10 % steps, and `current_step` is `analyst_work`.
 */
export const ANALYST_STEPS: readonly string[] = Array.from({ length: 10 }, () => 'analyst_work');

/** Minutes analysts have for an analysis unless the request says (`duration_minutes`). */
export const DEFAULT_ANALYSIS_DURATION_MINUTES = 1440;

/**
 * Target analyses done by people (the `analyst` engine, docs/analysts.md), a
 * kind of AnalystLifecycle: tasked blind (the target is the analysis's
 * description; its reference material and coordinates are never shown),
 * `processing` from its tasking, its steps done the share of analysts who
 * have submitted, its results combining the submissions.
 */
@Injectable()
export class AnalystAnalyses extends TimedAnalystKindService<AnalysisEntity> {
  readonly identity = ANALYSIS_IDENTITY;
  readonly submittable = ['processing'];
  readonly open = ['processing', 'queued'];
  readonly completedLog = { idKey: 'analysisId', message: 'analyst analysis completed' };
  readonly defaultMinutes = DEFAULT_ANALYSIS_DURATION_MINUTES;

  constructor(
    private readonly analyses: AnalysesRepository,
    private readonly events: EventLog,
    lifecycle: AnalystLifecycle,
  ) {
    super(lifecycle, analyses);
  }

  /** `question_type` is the analysis type, which says nothing of the target. */
  brief(analysis: AnalysisEntity): BlindBrief {
    return {
      target: analysisTarget(analysis),
      modality: null,
      questionType: analysis.analysisType,
    };
  }

  verified(analysis: AnalysisEntity): VerifiedRecordQuery {
    return {
      type: 'analysis',
      subtypes: [analysis.analysisType],
      defaultP0: ANALYSIS_DEFAULT_BASELINE,
    };
  }

  async recordTasked(
    tx: Transaction,
    tenant: Tenant,
    analysis: AnalysisEntity,
    tasking: Tasking,
    sequence: number,
    requestId: string | null,
  ): Promise<void> {
    await this.analyses.startAnalystWork(tx, tenant, analysis.id, {
      startedAt: tasking.createdAt,
      engineVersion: ANALYST_ANALYSIS_ENGINE_VERSION,
      estimatedCompletion: tasking.deadline,
      steps: ANALYST_STEPS,
      sequence,
    });
    Object.assign(analysis, {
      status: 'processing',
      startedAt: tasking.createdAt,
      engineVersion: ANALYST_ANALYSIS_ENGINE_VERSION,
      estimatedCompletion: tasking.deadline,
      steps: [...ANALYST_STEPS],
      stepsDone: 0,
      eventSequence: sequence,
    });
    await this.events.append(
      tx,
      tenant,
      'analysis.started',
      analysisStartedData(analysis, sequence),
      requestId,
    );
  }

  async recordProgress(
    tx: Transaction,
    tenant: Tenant,
    analysis: AnalysisEntity,
    progress: SubmissionProgress,
    sequence: number,
    requestId: string | null,
  ): Promise<boolean> {
    const stepsDone = Math.floor((progress.submitted / progress.active) * ANALYST_STEPS.length);
    if (stepsDone <= analysis.stepsDone) return false;
    await this.analyses.setStepsDone(tx, tenant, analysis.id, stepsDone, sequence);
    Object.assign(analysis, { stepsDone, eventSequence: sequence });
    await this.events.append(
      tx,
      tenant,
      'analysis.progress_updated',
      analysisProgressData(analysis, sequence),
      requestId,
    );
    return true;
  }

  async recordCompletion(
    tx: Transaction,
    tenant: Tenant,
    analysis: AnalysisEntity,
    { submissions, forCombining, records, p0, verified }: CompletionInputs,
    sequence: number,
    requestId: string | null,
  ): Promise<void> {
    const { hits, trials } = pooledTrials(records, p0);
    const lists = submissions.map((s) => s.descriptors ?? []);
    const combined = combineSubmissions(forCombining, records, p0, verified);
    const results = analysisResultsFrom(analysis, submissions, combined);
    const details: AnalysisScoreDetails = {
      material: null,
      analystAgreement: agreementOf(lists),
      judging:
        trials > 0 ? { hits, trials, p0, p_value: combined.statisticalValidation.p_value } : null,
    };
    const completedAt = new Date();
    await this.analyses.markCompleted(tx, tenant, analysis.id, {
      stepsDone: ANALYST_STEPS.length,
      completedAt,
      results,
      scoreDetails: details,
      evidence: combined.evidence,
      sequence,
    });
    const completed: AnalysisEntity = {
      ...analysis,
      status: 'completed',
      completedAt,
      stepsDone: ANALYST_STEPS.length,
    };
    await this.events.append(
      tx,
      tenant,
      'analysis.completed',
      analysisCompletedData(completed, results, sequence),
      requestId,
    );
  }
}

/** What the analysts are tasked with blind: the description, else the analysis's own reference. */
export function analysisTarget(
  analysis: Pick<AnalysisEntity, 'id' | 'description' | 'targetType'>,
): string {
  return (
    analysis.description ?? `The ${analysis.targetType} of ${toPublicId('analysis', analysis.id)}`
  );
}
