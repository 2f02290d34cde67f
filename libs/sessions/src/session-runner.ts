import { Injectable } from '@nestjs/common';
import { toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { type SessionEntity } from './entities/session.entity.js';
import { EngineRegistry, type SessionEngineOutcome } from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { OrganizationsService } from '#organizations';
import { WorkRunner } from '#work';
import { verifiedSessionsOf } from './session-evidence.js';
import { phaseOf, PROGRESS_STEP } from './session-phase.js';
import { sessionCompletedData } from './session-events.js';
import { SessionsService } from './sessions.service.js';
import { SessionsRepository } from './sessions.repository.js';

/**
 * Carries a session through its lifecycle: initiated → in_progress → completed
 * | failed, persisting and announcing progress at every 10 %. Its steps are
 * guarded (WorkRunner), so a job that runs again never moves progress back.
 */
@Injectable()
export class SessionRunner extends WorkRunner<SessionEntity> {
  constructor(
    private readonly repository: SessionsRepository,
    events: EventLog,
    private readonly organizations: OrganizationsService,
    private readonly sessions: SessionsService,
    private readonly engines: EngineRegistry,
    settings: AppSettings,
    private readonly verified: VerifiedRecords,
  ) {
    super('session', repository, events, settings);
  }

  /** Runs the session `sessionId` of `tenant` (its job's data) from its stored state. */
  async run(
    tenant: Tenant,
    sessionId: string,
    requestId: string | null,
    signal?: AbortSignal,
  ): Promise<void> {
    const session = await this.repository.find(tenant, sessionId);
    // People do analyst sessions (AnalystSessions).
    if (!this.runsHere(session)) return;
    const [orgSeed, verified] = await Promise.all([
      this.organizations.engineSeed(session.organizationId),
      this.verified.of(this.tenantOf(session), verifiedSessionsOf(session.type)),
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
      await this.pace(outcome.stepMultiplier, signal);
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
    return this.guardedStep(
      session,
      (tx, tenant, sequence, startedAt) =>
        this.repository.markStarted(tx, tenant, session.id, {
          startedAt,
          engineVersion: outcome.engineVersion,
          seed: outcome.seed,
          sequence,
        }),
      async (tx, sequence, startedAt) => {
        Object.assign(session, { status: 'in_progress', startedAt, engineSeed: outcome.seed });
        await this.announce(
          tx,
          session,
          'session.started',
          {
            ...this.base(session, sequence),
            started_at: startedAt.toISOString(),
          },
          requestId,
        );
      },
    );
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
      const tenant = this.tenantOf(session);
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
      await this.announce(
        tx,
        session,
        'session.progress_updated',
        {
          ...this.base({ ...session, status: 'in_progress' }, sequence),
          progress,
          current_phase: phaseOf({ status: 'in_progress', progress }),
        },
        requestId,
      );
      if (completing) {
        await this.announce(
          tx,
          session,
          'session.completed',
          sessionCompletedData(session, outcome.results, completedAt, sequence + 1, (index) =>
            this.sessions.sketchUrl(session, index),
          ),
          requestId,
        );
        this.logEnded(session, { status: 'completed' }, requestId);
      }
      return !completing;
    });
  }

  private async fail(
    session: SessionEntity,
    outcome: Extract<SessionEngineOutcome, { status: 'failed' }>,
    requestId: string | null,
  ): Promise<boolean> {
    await this.guardedStep(
      session,
      (tx, tenant, sequence, failedAt) =>
        this.repository.markFailed(
          tx,
          tenant,
          session.id,
          { reason: outcome.reason, failedAt, sequence },
          { onlyRunning: true },
        ),
      async (tx, sequence, failedAt) => {
        session.status = 'failed';
        await this.announce(
          tx,
          session,
          'session.failed',
          {
            ...this.base(session, sequence),
            reason: outcome.reason,
            message: outcome.message,
            failed_at: failedAt.toISOString(),
          },
          requestId,
        );
        this.logEnded(session, { status: 'failed', reason: outcome.reason }, requestId);
      },
    );
    return false;
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
