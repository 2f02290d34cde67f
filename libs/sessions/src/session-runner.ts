import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import type { Transaction } from '#database';
import { type SessionEntity } from './entities/session.entity.js';
import { EngineRegistry, type SessionEngineOutcome } from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { OrganizationsService } from '#organizations';
import { verifiedSessionsOf } from './session-evidence.js';
import { phaseOf, PROGRESS_STEP } from './session-phase.js';
import { sessionCompletedData } from './session-events.js';
import { SessionsService } from './sessions.service.js';
import { SessionsRepository } from './sessions.repository.js';

/**
 * Carries a session through its lifecycle: initiated → in_progress → completed
 * | failed, persisting and announcing progress at every 10 %. Each step is one
 * transaction guarded by the stored state, so a job that runs again after a
 * crash resumes where the last one stopped and never moves progress back.
 */
@Injectable()
export class SessionRunner {
  private readonly logger = new Logger(SessionRunner.name);

  constructor(
    private readonly repository: SessionsRepository,
    private readonly events: EventLog,
    private readonly organizations: OrganizationsService,
    private readonly sessions: SessionsService,
    private readonly engines: EngineRegistry,
    private readonly settings: AppSettings,
    private readonly verified: VerifiedRecords,
  ) {}

  /** Runs the session `sessionId` of `tenant` (its job's data) from its stored state. */
  async run(
    tenant: Tenant,
    sessionId: string,
    requestId: string | null,
    signal?: AbortSignal,
  ): Promise<void> {
    const session = await this.repository.find(tenant, sessionId);
    if (!session || session.status === 'completed' || session.status === 'failed') return;
    // People do analyst sessions (AnalystSessions): there is nothing for the worker to pace.
    if (session.engine === 'analyst') return;
    const [orgSeed, verified] = await Promise.all([
      this.organizations.engineSeed(session.organizationId),
      this.verified.of(tenantOf(session), verifiedSessionsOf(session.type)),
    ]);
    // The engine the session was created for, whatever the deployment would pick today.
    const outcome = await this.engines.session(session.engine).run(
      {
        type: session.type,
        target: session.target,
        modality: session.modality,
        durationMinutes: session.durationMinutes,
        privacyLevel: session.privacyLevel,
        analystCount: session.analystCount,
      },
      orgSeed,
      verified,
    );
    if (session.status === 'initiated' && !(await this.start(session, outcome, requestId))) return;

    for (
      let progress = session.progress + PROGRESS_STEP;
      progress <= 100;
      progress += PROGRESS_STEP
    ) {
      await sleep(
        this.settings.simulatedStepMs * outcome.stepMultiplier,
        undefined,
        signal ? { signal } : undefined,
      );
      const stillRunning =
        outcome.status === 'failed' && progress > outcome.failAtProgress
          ? await this.fail(session, outcome, requestId)
          : await this.advance(session, progress, outcome, requestId);
      if (!stillRunning) return;
    }
  }

  private async start(
    session: SessionEntity,
    outcome: SessionEngineOutcome,
    requestId: string | null,
  ): Promise<boolean> {
    return this.transition(session, async (tx, sequence) => {
      const startedAt = new Date();
      const started = await this.repository.markStarted(tx, tenantOf(session), session.id, {
        startedAt,
        engineVersion: outcome.engineVersion,
        seed: outcome.seed,
        sequence,
      });
      if (!started) return false;
      Object.assign(session, { status: 'in_progress', startedAt, engineSeed: outcome.seed });
      await this.events.append(
        tx,
        tenantOf(session),
        'session.started',
        {
          ...this.base(session, sequence),
          started_at: startedAt.toISOString(),
        },
        requestId,
      );
      return true;
    });
  }

  private async advance(
    session: SessionEntity,
    progress: number,
    outcome: SessionEngineOutcome,
    requestId: string | null,
  ): Promise<boolean> {
    const completing = progress === 100 && outcome.status === 'completed';
    return this.transition(session, async (tx, sequence) => {
      const completedAt = new Date();
      const tenant = tenantOf(session);
      const completion = completing
        ? {
            progress,
            sequence: sequence + 1,
            completedAt,
            results: { ...outcome.results },
            confidenceScore: outcome.results.confidence_score,
            analystId: outcome.analystId,
            evidence: outcome.evidence,
          }
        : null;
      const updated = completion
        ? await this.repository.markCompleted(tx, tenant, session.id, completion)
        : await this.repository.recordProgress(tx, tenant, session.id, progress, sequence);
      if (!updated) return false;
      const changes: Partial<SessionEntity> = completion
        ? {
            progress,
            eventSequence: completion.sequence,
            status: 'completed',
            completedAt,
            results: completion.results,
            confidenceScore: completion.confidenceScore,
            analystId: completion.analystId,
            evidence: completion.evidence,
          }
        : { progress, eventSequence: sequence };
      Object.assign(session, changes);
      await this.events.append(
        tx,
        tenant,
        'session.progress_updated',
        {
          ...this.base({ ...session, status: 'in_progress' }, sequence),
          progress,
          current_phase: phaseOf({ status: 'in_progress', progress }),
        },
        requestId,
      );
      if (completing) {
        await this.events.append(
          tx,
          tenant,
          'session.completed',
          sessionCompletedData(session, outcome.results, completedAt, sequence + 1, (index) =>
            this.sessions.sketchUrl(session, index),
          ),
          requestId,
        );
        this.logger.log(
          { sessionId: toPublicId('session', session.id), requestId },
          'session completed',
        );
      }
      return !completing;
    });
  }

  private async fail(
    session: SessionEntity,
    outcome: Extract<SessionEngineOutcome, { status: 'failed' }>,
    requestId: string | null,
  ): Promise<boolean> {
    await this.transition(session, async (tx, sequence) => {
      const failedAt = new Date();
      const failed = await this.repository.markFailed(tx, tenantOf(session), session.id, {
        reason: outcome.reason,
        failedAt,
        sequence,
      });
      if (!failed) return false;
      session.status = 'failed';
      await this.events.append(
        tx,
        tenantOf(session),
        'session.failed',
        {
          ...this.base(session, sequence),
          reason: outcome.reason,
          message: outcome.message,
          failed_at: failedAt.toISOString(),
        },
        requestId,
      );
      this.logger.log(
        { sessionId: toPublicId('session', session.id), reason: outcome.reason, requestId },
        'session failed',
      );
      return true;
    });
    return false;
  }

  /** Runs a state change in a transaction that holds the session row, with its next event sequence. */
  private transition(
    session: SessionEntity,
    change: (tx: Transaction, sequence: number) => Promise<boolean>,
  ): Promise<boolean> {
    return this.repository.transitionWithSequence(tenantOf(session), session.id, change);
  }

  private base(session: SessionEntity, sequence: number) {
    return {
      session_id: toPublicId('session', session.id),
      type: session.type,
      status: session.status,
      sequence,
    };
  }
}

function tenantOf(session: SessionEntity): Tenant {
  return { organizationId: session.organizationId, mode: session.mode };
}
