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
  type TimedWorkPeople,
} from '#analysts';
import type { Member } from '#auth';
import { AppError, parsePublicId, toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql, type JsonObject, type Transaction } from '#database';
import { DOWSING_DEFAULT_BASELINE, type DowsingVariantInput, verifiedStatistics } from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { PeriodicTasks } from '#queue';
import { dowsingAnswerFrom, forCombining } from './analyst-answer.js';
import { queryCompletedData, queryFailedData } from './dowsing-events.js';
import { DowsingQueriesRepository } from './dowsing-queries.repository.js';
import { DowsingReadingsRepository } from './dowsing-readings.repository.js';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

/** The version the `analyst` engine records with its answers. */
export const ANALYST_DOWSING_ENGINE_VERSION = 'analyst-1';

/** Minutes analysts have for a dowsing query unless the request says (`duration_minutes`). */
export const DEFAULT_DOWSING_DURATION_MINUTES = 60;

/** How a live query asks to be done by people (the create request's tasking fields). */
export type DowsingPeople = TimedWorkPeople;

/** What a query asks of people, checked before it is created. */
export type DowsingTaskingRequest = Pick<
  TaskingRequest,
  'analystCount' | 'analystIds' | 'judging' | 'decoyCount' | 'targetId' | 'durationMinutes'
>;

/**
 * Dowsing queries answered by people (the `analyst` engine, docs/analysts.md):
 * a query is `pending` from its creation, tasked blind (the target is the
 * question; its area, points, options and parameters are never shown), and
 * answered from the submissions when all analysts have submitted — or at the
 * deadline with at least one, else `failed` with `deadline_exceeded`.
 */
@Injectable()
export class AnalystDowsing {
  private readonly logger = new Logger(AnalystDowsing.name);

  constructor(
    private readonly sql: Sql,
    private readonly queries: DowsingQueriesRepository,
    private readonly readings: DowsingReadingsRepository,
    private readonly events: EventLog,
    private readonly work: AnalystWork,
    private readonly tasking: TaskingService,
    private readonly verified: VerifiedRecords,
  ) {}

  /** The engine of a new query: see TaskingService.engineFor. */
  engineFor(tenant: Tenant, requested: 'simulated' | 'analyst' | undefined) {
    return this.work.engineFor(tenant, requested);
  }

  /** Checks a query's tasking before it is created (AnalystWork.prepareTimed). */
  prepare(
    tenant: Tenant,
    people: DowsingPeople | undefined,
    at = '',
  ): Promise<DowsingTaskingRequest> {
    return this.work.prepareTimed(tenant, people, DEFAULT_DOWSING_DURATION_MINUTES, at);
  }

  /** Tasks a new (pending) query in its creating transaction; `question_type` is its query type. */
  async task(
    tx: Transaction,
    tenant: Tenant,
    query: DowsingQueryEntity,
    request: DowsingTaskingRequest,
    requestId: string | null,
  ): Promise<void> {
    await this.tasking.task(
      tx,
      tenant,
      {
        ...request,
        kind: 'dowsing',
        workId: query.id,
        workPublicId: toPublicId('dowsing', query.id),
        target: query.question,
        modality: null,
        questionType: query.queryType,
      },
      requestId,
    );
  }

  /**
   * An assigned analyst's submission (v2 `POST /dowsing/queries/{id}/results`);
   * the last one answers the query in the same transaction.
   */
  async submit(
    caller: Member | undefined,
    tenant: Tenant,
    publicId: string,
    input: SubmissionInput,
    requestId: string | null,
  ): Promise<Assignment> {
    const query = await this.queryOf(tenant, publicId);
    const member = this.work.submitter(
      { engine: query.engine, noun: 'dowsing query', publicId },
      caller,
    );
    let assignmentId = '';
    await this.sql.transaction(async (tx) => {
      const current = await this.queries.findForUpdate(tx, tenant, query.id);
      if (!current) throw AppError.notFound('dowsing query', publicId);
      const progress = await this.tasking.submit(
        tx,
        tenant,
        member,
        'dowsing',
        query.id,
        publicId,
        input,
        requestId,
      );
      assignmentId = assignmentPublicId(progress.assignment);
      if (current.status !== 'pending') return;
      if (progress.submitted === progress.active) {
        await this.complete(tx, current, progress.tasking, requestId);
      }
    });
    return this.work.assignments.assignmentOf(member, tenant.mode, assignmentId);
  }

  /** Closes queries past their deadline: answered from what was submitted, else failed. */
  async closeOverdue(): Promise<number> {
    return this.work.closeOverdue('dowsing', (tasking) =>
      this.sql.transaction(async (tx) => {
        const query = await this.queries.findForUpdate(tx, tenantOf(tasking), tasking.workId);
        if (!query || query.status !== 'pending') {
          await this.tasking.close(tx, tasking, 'cancelled', null);
          return false;
        }
        const submitted = await this.tasking.submissions(tx, tasking);
        if (submitted.length > 0) await this.complete(tx, query, tasking, null);
        else await this.failAtDeadline(tx, query, tasking);
        return true;
      }),
    );
  }

  /** A deleted query's tasking goes with it, target and all. */
  forget(tx: Transaction, tenant: Tenant, queryId: string): Promise<void> {
    return this.tasking.forget(tx, tenant, 'dowsing', queryId);
  }

  private async complete(
    tx: Transaction,
    query: DowsingQueryEntity,
    tasking: Tasking,
    requestId: string | null,
  ): Promise<void> {
    const tenant = tenantOf(query);
    const [{ submissions, forCombining: answers, records, p0 }, verified] = await Promise.all([
      this.work.inputs(tx, tenant, tasking, null),
      this.verified.of(tenant, {
        type: 'dowsing',
        subtypes: [query.queryType],
        defaultP0: DOWSING_DEFAULT_BASELINE[query.queryType],
      }),
    ]);
    const input = query.input as unknown as DowsingVariantInput;
    const combining = forCombining(query.queryType, input, answers);
    const combined = combineSubmissions(combining, records, p0, verifiedStatistics(verified));
    const result = dowsingAnswerFrom(
      { queryType: query.queryType, input },
      combining,
      combined,
      pooledTrials(records, p0),
    );
    const completedAt = new Date();
    const sequence = query.eventSequence + 1;
    await this.queries.markCompleted(tx, tenant, query.id, {
      result,
      confidence: result.confidence,
      evidence: combined.evidence,
      engineVersion: ANALYST_DOWSING_ENGINE_VERSION,
      completedAt,
      sequence,
    });
    const completed: DowsingQueryEntity = {
      ...query,
      status: 'completed',
      result: result as unknown as JsonObject,
      completedAt,
    };
    const located = submissions.filter((s) => s.latitude !== null && s.longitude !== null);
    if (query.queryType === 'location') {
      // Each analyst's point is a reading (heatmaps, temporal analysis), at their own confidence.
      await this.readings.insertMany(
        tx,
        tenant,
        query,
        located.map((s) => ({
          latitude: s.latitude!,
          longitude: s.longitude!,
          confidence: s.confidence ?? result.confidence,
        })),
      );
    }
    await this.events.append(
      tx,
      tenant,
      'dowsing.query_completed',
      queryCompletedData(completed, result, sequence),
      requestId,
    );
    await this.tasking.close(tx, tasking, 'completed', requestId);
    await this.work.judge(
      tx,
      tenant,
      tasking,
      { publicId: toPublicId('dowsing', query.id), modality: null, target: query.question },
      requestId,
    );
    this.logger.log(
      { queryId: toPublicId('dowsing', query.id), submissions: submissions.length, requestId },
      'analyst dowsing query answered',
    );
  }

  private async failAtDeadline(
    tx: Transaction,
    query: DowsingQueryEntity,
    tasking: Tasking,
  ): Promise<void> {
    const failedAt = new Date();
    const sequence = query.eventSequence + 1;
    const failed: DowsingQueryEntity = {
      ...query,
      status: 'failed',
      failureReason: 'deadline_exceeded',
      failureMessage: 'No analyst submitted before the deadline',
      completedAt: failedAt,
    };
    await this.queries.markFailed(tx, tenantOf(query), query.id, {
      reason: failed.failureReason!,
      message: failed.failureMessage!,
      failedAt,
      sequence,
    });
    await this.events.append(
      tx,
      tenantOf(query),
      'dowsing.query_failed',
      queryFailedData(failed, sequence),
      null,
    );
    await this.tasking.close(tx, tasking, 'expired', null);
  }

  private async queryOf(tenant: Tenant, publicId: string): Promise<DowsingQueryEntity> {
    const uuid = parsePublicId('dowsing', publicId);
    const query = uuid === null ? null : await this.queries.find(tenant, uuid);
    if (!query) throw AppError.notFound('dowsing query', publicId);
    return query;
  }
}

function tenantOf(work: { organizationId: string; mode: Tenant['mode'] }): Tenant {
  return { organizationId: work.organizationId, mode: work.mode };
}

/** The worker closes analyst dowsing queries whose deadline has passed, every ANALYST_DEADLINE_SWEEP_MS. */
@Injectable()
export class AnalystDowsingDeadlines implements OnModuleInit {
  constructor(
    private readonly dowsing: AnalystDowsing,
    private readonly periodic: PeriodicTasks,
    private readonly settings: AppSettings,
  ) {}

  onModuleInit(): void {
    this.periodic.register({
      name: 'dowsing.analyst-deadlines',
      everyMs: this.settings.analystDeadlineSweepMs,
      run: async () => {
        const closed = await this.dowsing.closeOverdue();
        return closed > 0 ? { closed } : undefined;
      },
    });
  }
}
