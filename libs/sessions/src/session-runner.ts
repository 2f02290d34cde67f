import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { OrganizationEntity, SessionEntity } from '#database';
import { EngineRegistry, type SessionEngineOutcome } from '#engines';
import { EventLog } from '#events';
import { phaseOf, PROGRESS_STEP } from './session-phase.js';
import { sessionCompletedData } from './session-events.js';
import { SessionsService } from './sessions.service.js';

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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventLog,
    private readonly sessions: SessionsService,
    private readonly engines: EngineRegistry,
    private readonly settings: AppSettings,
  ) {}

  async run(sessionId: string, requestId: string | null, signal?: AbortSignal): Promise<void> {
    const session = await this.dataSource.getRepository(SessionEntity).findOneBy({ id: sessionId });
    if (!session || session.status === 'completed' || session.status === 'failed') return;
    const organization = await this.dataSource.getRepository(OrganizationEntity).findOneByOrFail({
      id: session.organizationId,
    });
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
      organization.engineSeed,
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
    return this.transition(session, async (manager, sequence) => {
      const startedAt = new Date();
      const updated = await manager
        .createQueryBuilder()
        .update(SessionEntity)
        .set({
          status: 'in_progress',
          startedAt,
          engineVersion: outcome.engineVersion,
          engineSeed: outcome.seed,
          eventSequence: sequence,
        })
        .where('id = :id AND status = :status', { id: session.id, status: 'initiated' })
        .execute();
      if (!updated.affected) return false;
      Object.assign(session, { status: 'in_progress', startedAt, engineSeed: outcome.seed });
      await this.events.append(
        manager,
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
    return this.transition(session, async (manager, sequence) => {
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
      const updated = await manager
        .createQueryBuilder()
        .update(SessionEntity)
        .set(changes)
        .where('id = :id AND status = :status AND progress < :progress', {
          id: session.id,
          status: 'in_progress',
          progress,
        })
        .execute();
      if (!updated.affected) return false;
      Object.assign(session, changes);
      const tenant = tenantOf(session);
      await this.events.append(
        manager,
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
          manager,
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
    await this.transition(session, async (manager, sequence) => {
      const failedAt = new Date();
      const updated = await manager
        .createQueryBuilder()
        .update(SessionEntity)
        .set({
          status: 'failed',
          failureReason: outcome.reason,
          completedAt: failedAt,
          eventSequence: sequence,
        })
        .where('id = :id AND status IN (:...statuses)', {
          id: session.id,
          statuses: ['initiated', 'in_progress'],
        })
        .execute();
      if (!updated.affected) return false;
      session.status = 'failed';
      await this.events.append(
        manager,
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
    change: (manager: EntityManager, sequence: number) => Promise<boolean>,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const row = await manager
        .createQueryBuilder(SessionEntity, 's')
        .select(['s.id', 's.eventSequence'])
        .where('s.id = :id', { id: session.id })
        .setLock('pessimistic_write')
        .getOne();
      // Deleted while running: there is nothing left to move on.
      if (!row) return false;
      return change(manager, row.eventSequence + 1);
    });
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
