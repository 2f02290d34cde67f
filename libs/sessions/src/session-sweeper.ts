import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { toPublicId, type Mode } from '#common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { SLOW_STEP_MULTIPLIER } from '#engines';
import { JobProducer, PeriodicTasks, QUEUE } from '#queue';

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
 */
@Injectable()
export class SessionSweeper implements OnModuleInit {
  private readonly logger = new Logger(SessionSweeper.name);

  constructor(
    private readonly sql: Sql,
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
    });
  }

  /** Longest a healthy session goes without a change: three of the slowest steps, and a minute for queueing. */
  get staleAfterMs(): number {
    return 60_000 + 3 * this.settings.simulatedStepMs * SLOW_STEP_MULTIPLIER;
  }

  /** Enqueues every stale session again; returns how many. */
  async runOnce(): Promise<number> {
    const stale = await this.sql.rows<{
      id: string;
      organization_id: string;
      mode: Mode;
      updated_at: Date;
    }>(
      `SELECT id, organization_id, mode, updated_at FROM sessions
        WHERE status IN ('initiated', 'in_progress') AND updated_at < $1 AND engine <> 'analyst'
        ORDER BY updated_at LIMIT $2`,
      [new Date(Date.now() - this.staleAfterMs), BATCH],
    );
    for (const session of stale) {
      const publicId = toPublicId('session', session.id);
      await this.jobs.add(
        QUEUE.sessions,
        'run',
        {
          sessionId: session.id,
          organizationId: session.organization_id,
          mode: session.mode,
          requestId: null,
        },
        { jobId: `${publicId}-resumed-${session.updated_at.getTime()}` },
      );
    }
    return stale.length;
  }
}
