import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  type Assignment,
  assignmentPublicId,
  AnalystWork,
  type PreparedTasking,
  progressStep,
  type SubmissionInput,
  type Tasking,
  type WorkPeople,
} from '#analysts';
import type { Member } from '#auth';
import { AppError, parsePublicId, toPublicId, type Mode, type Tenant } from '#common';
import { AppSettings } from '#config';
import type { Transaction } from '#database';
import { type SessionResultsData, verifiedStatistics } from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { PeriodicTasks } from '#queue';
import type { SessionEntity } from './entities/session.entity.js';
import { verifiedSessionsOf } from './session-evidence.js';
import { sessionCompletedData } from './session-events.js';
import { phaseOf } from './session-phase.js';
import { sessionSketchUrl } from './session-sketches.js';
import { SessionsRepository } from './sessions.repository.js';

/** The version the `analyst` engine records with its work. */
export const ANALYST_ENGINE_VERSION = 'analyst-1';

/**
 * Sessions done by people (the `analyst` engine, docs/analysts.md): tasked to
 * the organisation's analysts when created, moved on by each submission
 * (progress is the share of analysts who have submitted), completed when all
 * have — or at the deadline with at least one submission, else failed with
 * `deadline_exceeded`. The results combine the submissions.
 */
@Injectable()
export class AnalystSessions {
  private readonly logger = new Logger(AnalystSessions.name);

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly events: EventLog,
    private readonly settings: AppSettings,
    private readonly work: AnalystWork,
    private readonly verified: VerifiedRecords,
  ) {}

  /** The engine of a new session: see TaskingService.engineFor. */
  engineFor(tenant: Tenant, requested: 'simulated' | 'analyst' | undefined) {
    return this.work.engineFor(tenant, requested);
  }

  /** What a session asks of people, checked before it is created (AnalystWork.prepare). */
  prepare(
    tenant: Tenant,
    analystCount: number,
    people: WorkPeople | undefined,
  ): Promise<PreparedTasking> {
    return this.work.prepare(tenant, analystCount, people);
  }

  /** Tasks a new session in its creating transaction: it is `in_progress` from now, with `session.started`. */
  async task(
    tx: Transaction,
    tenant: Tenant,
    session: SessionEntity,
    request: PreparedTasking,
    requestId: string | null,
  ): Promise<void> {
    const publicId = toPublicId('session', session.id);
    const tasking = await this.work.tasking.task(
      tx,
      tenant,
      {
        ...request,
        kind: 'session',
        workId: session.id,
        workPublicId: publicId,
        target: session.target,
        modality: session.modality,
        questionType: session.type,
        durationMinutes: session.durationMinutes,
      },
      requestId,
    );
    const sequence = session.eventSequence + 1;
    await this.sessions.markTasked(tx, tenant, session.id, {
      startedAt: tasking.createdAt,
      engineVersion: ANALYST_ENGINE_VERSION,
      deadline: tasking.deadline,
      sequence,
    });
    Object.assign(session, {
      status: 'in_progress',
      startedAt: tasking.createdAt,
      engineVersion: ANALYST_ENGINE_VERSION,
      estimatedCompletion: tasking.deadline,
      eventSequence: sequence,
    });
    await this.events.append(
      tx,
      tenant,
      'session.started',
      {
        session_id: publicId,
        type: session.type,
        status: 'in_progress',
        started_at: tasking.createdAt.toISOString(),
        sequence,
      },
      requestId,
    );
  }

  /**
   * An assigned analyst's submission (v2 `POST /sessions/{id}/results`),
   * answered in this order: an unknown session 404, a simulated one 404 to
   * a person and 409 naming `engine` to any other credential, a caller who is
   * no person 403, no assignment 404:
   * progress moves to the share who have submitted, announced once per
   * change (`session.progress_updated`, in whole 10 % steps, never back);
   * the last submission completes the session in the same transaction.
   */
  async submit(
    caller: Member | undefined,
    tenant: Tenant,
    publicId: string,
    input: SubmissionInput,
    requestId: string | null,
  ): Promise<Assignment> {
    const session = await this.sessionOf(tenant, publicId);
    const member = this.work.submitter(
      { engine: session.engine, noun: 'session', publicId },
      caller,
    );
    let assignmentId = '';
    await this.sessions.transitionWithSequence(tenant, session.id, async (tx, sequence) => {
      const progress = await this.work.tasking.submit(
        tx,
        tenant,
        member,
        'session',
        session.id,
        publicId,
        input,
        requestId,
      );
      assignmentId = assignmentPublicId(progress.assignment);
      const current = await this.locked(tx, tenant, session.id);
      if (current.status !== 'in_progress') return false;
      const reached = progressStep(progress);
      let next = sequence;
      if (reached > current.progress) {
        await this.sessions.recordProgress(tx, tenant, session.id, reached, next);
        await this.events.append(
          tx,
          tenant,
          'session.progress_updated',
          {
            session_id: publicId,
            type: session.type,
            status: 'in_progress',
            progress: reached,
            current_phase: phaseOf({ status: 'in_progress', progress: reached }),
            sequence: next,
          },
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

  /** Closes sessions past their deadline: completed with what was submitted, else failed. */
  closeOverdue(): Promise<number> {
    return this.work.closeOverdue('session', (tasking) => {
      const tenant = tenantOf(tasking);
      return this.sessions.transitionWithSequence(tenant, tasking.workId, async (tx, sequence) => {
        const session = await this.locked(tx, tenant, tasking.workId);
        if (session.status !== 'in_progress' && session.status !== 'initiated') {
          await this.work.tasking.close(tx, tasking, 'cancelled', null);
          return false;
        }
        const submitted = await this.work.tasking.submissions(tx, tasking);
        if (submitted.length > 0) await this.complete(tx, session, tasking, sequence, null);
        else await this.failAtDeadline(tx, session, tasking, sequence);
        return true;
      });
    });
  }

  /** A session was cancelled or deleted: its tasking closes (or goes) with it. */
  async cancelled(
    tx: Transaction,
    session: SessionEntity,
    requestId: string | null,
  ): Promise<void> {
    if (session.engine !== 'analyst') return;
    const tasking = await this.work.tasking.taskingOf(tenantOf(session), 'session', session.id);
    if (tasking) await this.work.tasking.close(tx, tasking, 'cancelled', requestId);
  }

  /** An analyst's uploaded sketch of the session, as stored. */
  sketch(session: SessionEntity, sketchId: string) {
    return this.work.sketches.ofWork(
      { organizationId: session.organizationId, mode: session.mode },
      'session',
      session.id,
      sketchId,
    );
  }

  /** A deleted session's tasking goes with it, target and all. */
  forget(tx: Transaction, tenant: Tenant, sessionId: string): Promise<void> {
    return this.work.tasking.forget(tx, tenant, 'session', sessionId);
  }

  private async complete(
    tx: Transaction,
    session: SessionEntity,
    tasking: Tasking,
    sequence: number,
    requestId: string | null,
  ): Promise<void> {
    const tenant = tenantOf(session);
    const verified = await this.verified.of(tenant, verifiedSessionsOf(session.type));
    const { submissions, combined } = await this.work.combine(
      tx,
      tenant,
      tasking,
      session.modality,
      verifiedStatistics(verified),
    );
    const sketches = submissions.flatMap((s) =>
      s.sketches.map((sketch) => ({
        analyst: toPublicId('analyst', s.userId),
        file: `${toPublicId('sketch', sketch.id)}.${EXTENSIONS[sketch.contentType] ?? 'bin'}`,
      })),
    );
    const results: SessionResultsData = {
      coordinates: combined.coordinates,
      descriptors: combined.descriptors,
      sketches: sketches.map((sketch, index) => ({
        index,
        file: sketch.file,
        description: `Sketch by ${sketch.analyst}`,
      })),
      confidence_score: combined.confidenceScore,
      validation_metrics: combined.validationMetrics,
      statistical_validation: combined.statisticalValidation,
      collaborative_insights: combined.collaborativeInsights,
    };
    const completedAt = new Date();
    await this.sessions.markCompletedBySubmissions(tx, tenant, session.id, {
      completedAt,
      results: { ...results },
      confidenceScore: results.confidence_score,
      analystId: combined.leadAnalystId,
      evidence: combined.evidence,
      sequence,
    });
    const completed = { ...session, status: 'completed' as const, results: results as never };
    await this.events.append(
      tx,
      tenant,
      'session.completed',
      sessionCompletedData(completed, results, completedAt, sequence, (index) =>
        sessionSketchUrl(this.settings.publicUrl, completed, index),
      ),
      requestId,
    );
    await this.work.tasking.close(tx, tasking, 'completed', requestId);
    await this.work.judge(
      tx,
      tenant,
      tasking,
      {
        publicId: toPublicId('session', session.id),
        modality: session.modality,
        target: session.target,
      },
      requestId,
    );
    this.logger.log(
      { sessionId: toPublicId('session', session.id), submissions: submissions.length, requestId },
      'analyst session completed',
    );
  }

  private async failAtDeadline(
    tx: Transaction,
    session: SessionEntity,
    tasking: Tasking,
    sequence: number,
  ): Promise<void> {
    const failedAt = new Date();
    const tenant = tenantOf(session);
    await this.sessions.markEnded(tx, tenant, session.id, {
      reason: 'deadline_exceeded',
      failedAt,
      sequence,
    });
    await this.events.append(
      tx,
      tenant,
      'session.failed',
      {
        session_id: toPublicId('session', session.id),
        type: session.type,
        status: 'failed',
        reason: 'deadline_exceeded',
        message: 'No analyst submitted before the deadline',
        failed_at: failedAt.toISOString(),
        sequence,
      },
      null,
    );
    await this.work.tasking.close(tx, tasking, 'expired', null);
  }

  private async sessionOf(tenant: Tenant, publicId: string): Promise<SessionEntity> {
    const uuid = parsePublicId('session', publicId);
    const session = uuid === null ? null : await this.sessions.find(tenant, uuid);
    if (!session) throw AppError.notFound('session', publicId);
    return session;
  }

  /** The session whose row `tx` holds (transitionWithSequence found it). */
  private async locked(tx: Transaction, tenant: Tenant, id: string): Promise<SessionEntity> {
    return (await this.sessions.find(tenant, id, tx))!;
  }
}

function tenantOf(work: { organizationId: string; mode: Mode }): Tenant {
  return { organizationId: work.organizationId, mode: work.mode };
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
};

/** The worker closes analyst sessions whose deadline has passed, every ANALYST_DEADLINE_SWEEP_MS. */
@Injectable()
export class AnalystSessionDeadlines implements OnModuleInit {
  constructor(
    private readonly sessions: AnalystSessions,
    private readonly periodic: PeriodicTasks,
    private readonly settings: AppSettings,
  ) {}

  onModuleInit(): void {
    this.periodic.register({
      name: 'sessions.analyst-deadlines',
      everyMs: this.settings.analystDeadlineSweepMs,
      run: async () => {
        const closed = await this.sessions.closeOverdue();
        return closed > 0 ? { closed } : undefined;
      },
    });
  }
}
