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
import { AnalysesRepository, type RunningAnalysis } from './analyses.repository.js';
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
 *
 * That periodic sweep is the fallback. When a worker notices Redis lost its
 * data (RedisDataLoss), `recoverLostJobs` runs at once instead, without the
 * staleness wait: every such analysis whose job is gone is enqueued again.
 */
@Injectable()
export class AnalysisSweeper implements OnModuleInit {
  private readonly logger = new Logger(AnalysisSweeper.name);

  constructor(
    private readonly analyses: AnalysesRepository,
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
      recover: async () => {
        const resumed = await this.recoverLostJobs();
        if (resumed > 0) {
          this.logger.warn({ resumed }, 'analyses whose job Redis lost enqueued again');
        }
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
    const stale = await this.analyses.staleAcrossTenants(
      new Date(Date.now() - this.staleAfterMs),
      BATCH,
    );
    let resumed = 0;
    for (const analysis of stale) {
      const publicId = toPublicId('analysis', analysis.id);
      const resumedId = workJobIds(publicId, analysis.updatedAt, true).resumed;
      // The job that would run it: the first one of a queued analysis, or one an earlier sweep added.
      const pending = analysis.status === 'queued' ? [publicId, resumedId] : [resumedId];
      if (await this.jobs.anyPending(QUEUE.analyses, pending)) continue;
      // A resumed job that finished without moving the analysis (failed for good) would make
      // the add below a no-op for as long as BullMQ keeps it: it goes first.
      await this.jobs.queue(QUEUE.analyses).remove(resumedId);
      resumed += 1;
      await this.jobs.add(
        QUEUE.analyses,
        'run',
        {
          analysisId: analysis.id,
          organizationId: analysis.organizationId,
          mode: analysis.mode,
          requestId: null,
        },
        { jobId: resumedId, priority: QUEUE_PRIORITY[analysis.priority] },
      );
    }
    return resumed;
  }

  /**
   * After Redis lost its data: enqueues again every queued or processing
   * simulated analysis whose job is gone, however recently it changed;
   * returns how many. One still waiting or running under its job is left
   * alone, as is one that changed after this began (something runs it). A
   * queued one gets its first job's id, the analysis id, with its priority,
   * so the job its `analysis.created` event adds when relayed (again) is the
   * same job; a processing one gets the periodic sweep's id for the state
   * found. Either way a second worker recovering at the same time adds
   * nothing. An analysis a worker was running when Redis went carries on in
   * that worker; of it and its twin, whichever finds its next step already
   * taken stops there (the runner's steps are guarded).
   */
  async recoverLostJobs(): Promise<number> {
    return requeueLostWork(
      this.jobs,
      { queue: QUEUE.analyses, name: 'run', pageSize: BATCH },
      this.analyses.unfinishedAcrossTenants(),
      (analysis) => ({
        ids: jobIdsOf(analysis),
        data: {
          analysisId: analysis.id,
          organizationId: analysis.organizationId,
          mode: analysis.mode,
          requestId: null,
        },
        options: { priority: QUEUE_PRIORITY[analysis.priority] },
      }),
    );
  }
}

/**
 * An analysis's job ids: its first (AnalysisScheduler's), the one a sweep
 * gives it in the state found, and the one recovery gives it.
 */
function jobIdsOf(analysis: RunningAnalysis): WorkJobIds {
  return workJobIds(
    toPublicId('analysis', analysis.id),
    analysis.updatedAt,
    analysis.status !== 'queued',
  );
}
