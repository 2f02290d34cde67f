import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { toPublicId, type Mode } from '#common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { SLOW_STEP_MULTIPLIER } from '#engines';
import { JobProducer, PeriodicTasks, QUEUE } from '#queue';
import { QUEUE_PRIORITY } from './analysis-estimates.js';

const RUN_EVERY_MS = 60_000;
const BATCH = 500;

/**
 * Restarts analyses whose work was lost (their job vanished with Redis's
 * data, or failed for good), as SessionSweeper does for sessions. A long
 * wait in the queue is normal under a backlog, so a queued one is enqueued
 * again only when its job is gone or finished. A processing one unchanged
 * for too long is enqueued again. Either gets an id naming the state it was
 * found in, so a sweep adds it once; the runner resumes at the stored step,
 * and its guarded steps make a still-running twin harmless.
 */
@Injectable()
export class AnalysisSweeper implements OnModuleInit {
  private readonly logger = new Logger(AnalysisSweeper.name);

  constructor(
    private readonly sql: Sql,
    private readonly jobs: JobProducer,
    private readonly tasks: PeriodicTasks,
    private readonly settings: AppSettings,
  ) {}

  onModuleInit(): void {
    this.tasks.register({
      name: 'analyses.sweep',
      everyMs: RUN_EVERY_MS,
      run: async () => {
        const resumed = await this.runOnce();
        if (resumed > 0) this.logger.warn({ resumed }, 'stale analyses enqueued again');
      },
    });
  }

  /**
   * Longest a healthy analysis goes without a change: three of the slowest
   * steps, the material's fetch time limit, and a minute for queueing.
   */
  get staleAfterMs(): number {
    return (
      60_000 +
      this.settings.outbound.materialTimeoutMs +
      3 * this.settings.simulatedStepMs * SLOW_STEP_MULTIPLIER
    );
  }

  /** Enqueues every analysis whose work was lost again; returns how many. */
  async runOnce(): Promise<number> {
    const stale = await this.sql.rows<{
      id: string;
      organization_id: string;
      mode: Mode;
      priority: keyof typeof QUEUE_PRIORITY;
      status: 'queued' | 'processing';
      updated_at: Date;
    }>(
      `SELECT id, organization_id, mode, priority, status, updated_at FROM analyses
        WHERE status IN ('queued', 'processing') AND updated_at < $1 AND engine <> 'analyst'
        ORDER BY updated_at LIMIT $2`,
      [new Date(Date.now() - this.staleAfterMs), BATCH],
    );
    let resumed = 0;
    for (const analysis of stale) {
      const publicId = toPublicId('analysis', analysis.id);
      const resumedId = `${publicId}-resumed-${analysis.updated_at.getTime()}`;
      // The job that would run it: the first one of a queued analysis, or one an earlier sweep added.
      const pending = analysis.status === 'queued' ? [publicId, resumedId] : [resumedId];
      if (await this.anyPending(pending)) continue;
      // A resumed job that finished without moving the analysis (failed for good) would make
      // the add below a no-op for as long as BullMQ keeps it: it goes first.
      await this.jobs.queue(QUEUE.analyses).remove(resumedId);
      resumed += 1;
      await this.jobs.add(
        QUEUE.analyses,
        'run',
        {
          analysisId: analysis.id,
          organizationId: analysis.organization_id,
          mode: analysis.mode,
          requestId: null,
        },
        { jobId: resumedId, priority: QUEUE_PRIORITY[analysis.priority] },
      );
    }
    return resumed;
  }

  /** Whether any of these jobs is still waiting or running: the queue will reach the analysis. */
  private async anyPending(jobIds: readonly string[]): Promise<boolean> {
    const queue = this.jobs.queue(QUEUE.analyses);
    for (const id of jobIds) {
      const job = await queue.getJob(id);
      if (!job) continue;
      const state = await job.getState();
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return true;
    }
    return false;
  }
}
