import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { sequencedTransition, Sql, type Transaction } from '#database';
import { type SessionEntity } from './entities/session.entity.js';
import { EngineRegistry, type SessionEngineOutcome } from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { OrganizationsService } from '#organizations';
import { verifiedSessionsOf } from './session-evidence.js';
import { phaseOf, PROGRESS_STEP } from './session-phase.js';
import { sessionCompletedData } from './session-events.js';
import { SessionsService } from './sessions.service.js';
import { SESSION_COLUMNS, sessionFromRow, type SessionRow } from './session-rows.js';

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
    private readonly sql: Sql,
    private readonly events: EventLog,
    private readonly organizations: OrganizationsService,
    private readonly sessions: SessionsService,
    private readonly engines: EngineRegistry,
    private readonly settings: AppSettings,
    private readonly verified: VerifiedRecords,
  ) {}

  async run(sessionId: string, requestId: string | null, signal?: AbortSignal): Promise<void> {
    const [row] = await this.sql.rows<SessionRow>(
      `SELECT ${SESSION_COLUMNS.join(', ')} FROM sessions WHERE id = $1`,
      [sessionId],
    );
    const session = row ? sessionFromRow(row) : null;
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
      const updated = await tx.query(
        `UPDATE sessions SET status = 'in_progress', started_at = $2, engine_version = $3,
                engine_seed = $4, event_sequence = $5, updated_at = now()
          WHERE id = $1 AND status = 'initiated'`,
        [session.id, startedAt, outcome.engineVersion, outcome.seed, sequence],
      );
      if (!updated.rowCount) return false;
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
      const changes: Partial<SessionEntity> = {
        progress,
        eventSequence: sequence + (completing ? 1 : 0),
      };
      if (completing) {
        Object.assign(changes, {
          status: 'completed',
          completedAt,
          results: { ...outcome.results },
          confidenceScore: outcome.results.confidence_score,
          analystId: outcome.analystId,
          evidence: outcome.evidence,
        });
      }
      const updated = await tx.query(
        completing
          ? `UPDATE sessions SET progress = $2, event_sequence = $3, status = 'completed',
                    completed_at = $4, results = $5, confidence_score = $6, analyst_id = $7,
                    evidence = $8, updated_at = now()
              WHERE id = $1 AND status = 'in_progress' AND progress < $2`
          : `UPDATE sessions SET progress = $2, event_sequence = $3, updated_at = now()
              WHERE id = $1 AND status = 'in_progress' AND progress < $2`,
        completing
          ? [
              session.id,
              progress,
              changes.eventSequence,
              completedAt,
              changes.results,
              changes.confidenceScore,
              changes.analystId,
              changes.evidence,
            ]
          : [session.id, progress, changes.eventSequence],
      );
      if (!updated.rowCount) return false;
      Object.assign(session, changes);
      const tenant = tenantOf(session);
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
      const updated = await tx.query(
        `UPDATE sessions SET status = 'failed', failure_reason = $2, completed_at = $3,
                event_sequence = $4, updated_at = now()
          WHERE id = $1 AND status IN ('initiated', 'in_progress')`,
        [session.id, outcome.reason, failedAt, sequence],
      );
      if (!updated.rowCount) return false;
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
    return sequencedTransition(this.sql, 'sessions', session.id, change);
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
