import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  AnalystWork,
  type Assignment,
  assignmentPublicId,
  combineSubmissions,
  pooledTrials,
  type SubmissionInput,
  TaskingService,
  type Tasking,
  type TaskingRequest,
} from '#analysts';
import type { Member } from '#auth';
import { AppError, parsePublicId, toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import type { Transaction } from '#database';
import { ANALYSIS_DEFAULT_BASELINE, type AnalysisScoreDetails, verifiedStatistics } from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { PeriodicTasks } from '#queue';
import { AnalysesRepository } from './analyses.repository.js';
import {
  analysisCompletedData,
  analysisFailedData,
  analysisProgressData,
  analysisStartedData,
} from './analysis-events.js';
import type { AnalysisPeople } from './analysis-request.js';
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

/** What an analysis asks of people, checked before it is created. */
export type AnalysisTaskingRequest = Pick<
  TaskingRequest,
  'analystCount' | 'analystIds' | 'judging' | 'decoyCount' | 'targetId' | 'durationMinutes'
>;

/**
 * Target analyses done by people (the `analyst` engine, docs/analysts.md),
 * as AnalystSessions does sessions: tasked blind when created (the target is
 * the analysis's description; its reference material and coordinates are
 * never shown), moved on by each submission, completed when all have
 * submitted — or at the deadline with at least one submission, else failed
 * with `deadline_exceeded`. The results combine the submissions.
 */
@Injectable()
export class AnalystAnalyses {
  private readonly logger = new Logger(AnalystAnalyses.name);

  constructor(
    private readonly analyses: AnalysesRepository,
    private readonly events: EventLog,
    private readonly work: AnalystWork,
    private readonly tasking: TaskingService,
    private readonly verified: VerifiedRecords,
  ) {}

  /** The engine of a new analysis: see TaskingService.engineFor. */
  engineFor(tenant: Tenant, requested: 'simulated' | 'analyst' | undefined) {
    return this.work.engineFor(tenant, requested);
  }

  /** Checks an analysis's tasking before it is created (AnalystWork.prepareTimed). */
  prepare(
    tenant: Tenant,
    people: AnalysisPeople | undefined,
    at = '',
  ): Promise<AnalysisTaskingRequest> {
    return this.work.prepareTimed(tenant, people, DEFAULT_ANALYSIS_DURATION_MINUTES, at);
  }

  /**
   * Tasks a new analysis in its creating transaction: it is `processing`
   * from now (`analysis.started`), due at the deadline. The blind target is
   * the description (else "the {target_type} of anal_…"); `question_type` is
   * the analysis type, which says nothing of the target.
   */
  async task(
    tx: Transaction,
    tenant: Tenant,
    analysis: AnalysisEntity,
    request: AnalysisTaskingRequest,
    requestId: string | null,
  ): Promise<void> {
    const publicId = toPublicId('analysis', analysis.id);
    const tasking = await this.tasking.task(
      tx,
      tenant,
      {
        ...request,
        kind: 'analysis',
        workId: analysis.id,
        workPublicId: publicId,
        target: analysisTarget(analysis),
        modality: null,
        questionType: analysis.analysisType,
      },
      requestId,
    );
    const sequence = analysis.eventSequence + 1;
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

  /**
   * An assigned analyst's submission (v2 `POST /analysis/{id}/results`):
   * progress moves to the share who have submitted (`analysis.progress_updated`
   * once per 10 % step reached, never back); the last submission completes
   * the analysis in the same transaction.
   */
  async submit(
    caller: Member | undefined,
    tenant: Tenant,
    publicId: string,
    input: SubmissionInput,
    requestId: string | null,
  ): Promise<Assignment> {
    const analysis = await this.analysisOf(tenant, publicId);
    const member = this.work.submitter(
      { engine: analysis.engine, noun: 'analysis', publicId },
      caller,
    );
    let assignmentId = '';
    await this.analyses.transitionWithSequence(tenant, analysis.id, async (tx, sequence) => {
      const progress = await this.tasking.submit(
        tx,
        tenant,
        member,
        'analysis',
        analysis.id,
        publicId,
        input,
        requestId,
      );
      assignmentId = assignmentPublicId(progress.assignment);
      const current = await this.locked(tx, tenant, analysis.id);
      if (current.status !== 'processing') return false;
      const stepsDone = Math.floor((progress.submitted / progress.active) * ANALYST_STEPS.length);
      let next = sequence;
      if (stepsDone > current.stepsDone) {
        await this.analyses.setStepsDone(tx, tenant, analysis.id, stepsDone, next);
        Object.assign(current, { stepsDone, eventSequence: next });
        await this.events.append(
          tx,
          tenant,
          'analysis.progress_updated',
          analysisProgressData(current, next),
          requestId,
        );
        next += 1;
      }
      if (progress.submitted === progress.active) {
        await this.complete(tx, current, progress.tasking, next, requestId);
      }
      return true;
    });
    return this.work.assignments.assignmentOf(member, tenant.mode, assignmentId);
  }

  /** Closes analyses past their deadline: completed with what was submitted, else failed. */
  async closeOverdue(): Promise<number> {
    return this.work.closeOverdue('analysis', (tasking) =>
      this.analyses.transitionWithSequence(
        tenantOf(tasking),
        tasking.workId,
        async (tx, sequence) => {
          const analysis = await this.locked(tx, tenantOf(tasking), tasking.workId);
          if (analysis.status !== 'processing' && analysis.status !== 'queued') {
            await this.tasking.close(tx, tasking, 'cancelled', null);
            return false;
          }
          const submitted = await this.tasking.submissions(tx, tasking);
          if (submitted.length > 0) await this.complete(tx, analysis, tasking, sequence, null);
          else await this.failAtDeadline(tx, analysis, tasking, sequence);
          return true;
        },
      ),
    );
  }

  /** An analysis was cancelled: its tasking closes with it. */
  async cancelled(
    tx: Transaction,
    analysis: AnalysisEntity,
    requestId: string | null,
  ): Promise<void> {
    if (analysis.engine !== 'analyst') return;
    const tasking = await this.tasking.taskingOf(tenantOf(analysis), 'analysis', analysis.id);
    if (tasking) await this.tasking.close(tx, tasking, 'cancelled', requestId);
  }

  /** A deleted analysis's tasking goes with it, target and all. */
  forget(tx: Transaction, tenant: Tenant, analysisId: string): Promise<void> {
    return this.tasking.forget(tx, tenant, 'analysis', analysisId);
  }

  private async complete(
    tx: Transaction,
    analysis: AnalysisEntity,
    tasking: Tasking,
    sequence: number,
    requestId: string | null,
  ): Promise<void> {
    const tenant = tenantOf(analysis);
    const [{ submissions, forCombining, records, p0 }, verified] = await Promise.all([
      this.work.inputs(tx, tenant, tasking, null),
      this.verified.of(tenant, {
        type: 'analysis',
        subtypes: [analysis.analysisType],
        defaultP0: ANALYSIS_DEFAULT_BASELINE,
      }),
    ]);
    const { hits, trials } = pooledTrials(records, p0);
    const lists = submissions.map((s) => s.descriptors ?? []);
    const combined = combineSubmissions(forCombining, records, p0, verifiedStatistics(verified));
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
    await this.tasking.close(tx, tasking, 'completed', requestId);
    await this.work.judge(
      tx,
      tenant,
      tasking,
      {
        publicId: toPublicId('analysis', analysis.id),
        modality: null,
        target: analysisTarget(analysis),
      },
      requestId,
    );
    this.logger.log(
      {
        analysisId: toPublicId('analysis', analysis.id),
        submissions: submissions.length,
        requestId,
      },
      'analyst analysis completed',
    );
  }

  private async failAtDeadline(
    tx: Transaction,
    analysis: AnalysisEntity,
    tasking: Tasking,
    sequence: number,
  ): Promise<void> {
    const failedAt = new Date();
    const message = 'No analyst submitted before the deadline';
    await this.analyses.markFailed(tx, tenantOf(analysis), analysis.id, {
      reason: 'deadline_exceeded',
      message,
      failedAt,
      sequence,
    });
    await this.events.append(
      tx,
      tenantOf(analysis),
      'analysis.failed',
      analysisFailedData(
        { ...analysis, completedAt: failedAt },
        'deadline_exceeded',
        message,
        sequence,
      ),
      null,
    );
    await this.tasking.close(tx, tasking, 'expired', null);
  }

  private async analysisOf(tenant: Tenant, publicId: string): Promise<AnalysisEntity> {
    const uuid = parsePublicId('analysis', publicId);
    const analysis = uuid === null ? null : await this.analyses.find(tenant, uuid);
    if (!analysis) throw AppError.notFound('analysis', publicId);
    return analysis;
  }

  /** The analysis whose row the transition holds (it exists: the transition found it). */
  private async locked(tx: Transaction, tenant: Tenant, id: string): Promise<AnalysisEntity> {
    return (await this.analyses.find(tenant, id, tx))!;
  }
}

function tenantOf(work: { organizationId: string; mode: Tenant['mode'] }): Tenant {
  return { organizationId: work.organizationId, mode: work.mode };
}

/** What the analysts are tasked with blind: the description, else the analysis's own reference. */
export function analysisTarget(
  analysis: Pick<AnalysisEntity, 'id' | 'description' | 'targetType'>,
): string {
  return (
    analysis.description ?? `The ${analysis.targetType} of ${toPublicId('analysis', analysis.id)}`
  );
}

/** The worker closes analyst analyses whose deadline has passed, every ANALYST_DEADLINE_SWEEP_MS. */
@Injectable()
export class AnalystAnalysisDeadlines implements OnModuleInit {
  constructor(
    private readonly analyses: AnalystAnalyses,
    private readonly periodic: PeriodicTasks,
    private readonly settings: AppSettings,
  ) {}

  onModuleInit(): void {
    this.periodic.register({
      name: 'analyses.analyst-deadlines',
      everyMs: this.settings.analystDeadlineSweepMs,
      run: async () => {
        const closed = await this.analyses.closeOverdue();
        return closed > 0 ? { closed } : undefined;
      },
    });
  }
}
