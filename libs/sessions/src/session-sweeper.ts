import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { toPublicId } from '#common';
import { AppSettings } from '#config';
import { SLOW_STEP_MULTIPLIER } from '#engines';
import {
  JobProducer,
  PeriodicTasks,
  QUEUE,
  requeueLostWork,
  workJobIds,
  type WorkJobIds,
} from '#queue';
import { SessionsRepository, type RunningSession } from './sessions.repository.js';

const RUN_EVERY_MS = 60_000;
const BATCH = 500;

/**
 * Restarts simulated sessions whose work was lost (analyst sessions wait for
 * people and end at their deadline): their job vanished with Redis's data,
 * or failed for good, so they sit initiated or in progress, unchanged, far
 * longer than any step takes, and hold places of their organisation's
 * concurrent sessions. Each is enqueued again under an id naming the state it
 * was found in, so a sweep adds it once; the runner resumes from the stored
 * progress, and its guarded steps make a still-running twin harmless.
 *
 * That periodic sweep is the fallback. When a worker notices Redis lost its
 * data (RedisDataLoss), `recoverLostJobs` runs at once instead, without the
 * staleness wait: every such session whose job is gone is enqueued again.
 */
@Injectable()
export class SessionSweeper implements OnModuleInit {
  private readonly logger = new Logger(SessionSweeper.name);

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly jobs: JobProducer,
    private readonly tasks: PeriodicTasks,
    private readonly settings: AppSettings,
  ) {}

  onModuleInit(): void {
    this.tasks.register({
      name: 'sessions.sweep',
      everyMs: RUN_EVERY_MS,
      run: async () => {
        const resumed = await this.runOnce();
        if (resumed > 0) this.logger.warn({ resumed }, 'stale sessions enqueued again');
      },
      recover: async () => {
        const resumed = await this.recoverLostJobs();
        if (resumed > 0)
          this.logger.warn({ resumed }, 'sessions whose job Redis lost enqueued again');
      },
    });
  }

  /** Longest a healthy session goes without a change: three of the slowest steps, and a minute for queueing. */
  get staleAfterMs(): number {
    return 60_000 + 3 * this.settings.simulatedStepMs * SLOW_STEP_MULTIPLIER;
  }

  /** Enqueues every stale session again; returns how many. */
  async runOnce(): Promise<number> {
    const stale = await this.sessions.staleAcrossTenants(
      new Date(Date.now() - this.staleAfterMs),
      BATCH,
    );
    for (const session of stale) {
      const publicId = toPublicId('session', session.id);
      await this.jobs.add(
        QUEUE.sessions,
        'run',
        {
          sessionId: session.id,
          organizationId: session.organizationId,
          mode: session.mode,
          requestId: null,
        },
        { jobId: workJobIds(publicId, session.updatedAt, true).resumed },
      );
    }
    return stale.length;
  }

  /**
   * After Redis lost its data: enqueues again every initiated or in-progress
   * simulated session whose job is gone, however recently it changed; returns
   * how many. A session still waiting or running under its job is left alone,
   * as is one that changed after this began (something runs it). An initiated
   * one gets its first job's id, the session id, so the job its
   * `session.created` event adds when relayed (again) is the same job; one in
   * progress gets the periodic sweep's id for the state found. Either way a
   * second worker recovering at the same time adds nothing. A session a worker
   * was running when Redis went carries on in that worker, since the runner
   * needs only PostgreSQL; of it and its twin, whichever finds its next step
   * already taken stops there (the runner's steps are guarded).
   */
  async recoverLostJobs(): Promise<number> {
    return requeueLostWork(
      this.jobs,
      { queue: QUEUE.sessions, name: 'run', pageSize: BATCH },
      this.sessions.unfinishedAcrossTenants(),
      (session) => ({
        ids: jobIdsOf(session),
        data: {
          sessionId: session.id,
          organizationId: session.organizationId,
          mode: session.mode,
          requestId: null,
        },
      }),
    );
  }
}

/**
 * A session's job ids: its first (SessionScheduler's), the one a sweep gives
 * it in the state found, and the one recovery gives it.
 */
function jobIdsOf(session: RunningSession): WorkJobIds {
  return workJobIds(
    toPublicId('session', session.id),
    session.updatedAt,
    session.status !== 'initiated',
  );
}
