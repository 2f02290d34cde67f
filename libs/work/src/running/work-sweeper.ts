import { Logger, type OnModuleInit } from '@nestjs/common';
import type { JobsOptions } from 'bullmq';
import { toPublicId, type IdKind, type Mode } from '#common';
import type { AppSettings } from '#config';
import { SLOW_STEP_MULTIPLIER } from '#engines';
import {
  requeueLostWork,
  workJobIds,
  type JobData,
  type JobName,
  type JobProducer,
  type PeriodicTasks,
  type QueueName,
  type UnfinishedPages,
  type UnfinishedWork,
  type WorkJobIds,
} from '#queue';

const RUN_EVERY_MS = 60_000;
const BATCH = 500;

/** What a sweep reads of a piece of unfinished work the worker runs. */
export interface SweptWork {
  id: string;
  organizationId: string;
  mode: Mode;
  status: string;
  updatedAt: Date;
}

/** What a kind of work tells the sweep: its queue, its job, and its repository's reads. */
export interface SweptKind<W extends SweptWork, Q extends QueueName, N extends JobName<Q>> {
  /** The work's queue; it names the periodic task (`<queue>.sweep`) and the log lines too. */
  queue: Q;
  jobName: N;
  /** The kind of the work's public id, which is its first job's id. */
  idKind: IdKind;
  /** The status of work not started yet, whose first job may still be waiting under a backlog. */
  firstStatus: W['status'];
  /**
   * What a healthy run may spend beyond its paced steps without changing
   * the work (analyses: the material's fetch time limit).
   */
  extraQuietMs?: (settings: AppSettings) => number;
  /** The run job of `work`, but for its id. */
  jobOf: (work: W) => { data: JobData<Q, N>; options?: JobsOptions };
  /** The repository's unfinished work unchanged since `changedBefore`, oldest first. */
  stale: (changedBefore: Date, limit: number) => Promise<W[]>;
  /** The repository's unfinished work, a page at a time (recovery after Redis lost its data). */
  unfinished: () => UnfinishedPages<W & UnfinishedWork>;
}

/**
 * Restarts simulated work whose job was lost (analyst work waits for people
 * and ends at its deadline): its job vanished with Redis's data, or failed
 * for good, so it sits unfinished, unchanged, far longer than any step
 * takes, and holds a place of its organisation's concurrent work. A long
 * wait in the queue is normal under a backlog, so work is enqueued again
 * only when no job that would run it is pending. It gets an id naming the
 * state it was found in, so a sweep adds it once; the runner resumes from
 * the stored state, and its guarded steps make a still-running twin harmless.
 *
 * That periodic sweep is the fallback. When a worker notices Redis lost its
 * data (RedisDataLoss), `recoverLostJobs` runs at once instead, without the
 * staleness wait: every such piece of work whose job is gone is enqueued again.
 *
 * A kind's sweeper is a subclass that passes its `SweptKind`.
 */
export abstract class WorkSweeper<
  W extends SweptWork,
  Q extends QueueName,
  N extends JobName<Q>,
> implements OnModuleInit {
  private readonly logger = new Logger(this.constructor.name);

  protected constructor(
    private readonly kind: SweptKind<W, Q, N>,
    private readonly jobs: JobProducer,
    private readonly tasks: PeriodicTasks,
    private readonly settings: AppSettings,
  ) {}

  onModuleInit(): void {
    const { queue } = this.kind;
    this.tasks.register({
      name: `${queue}.sweep`,
      everyMs: RUN_EVERY_MS,
      run: async () => {
        const resumed = await this.runOnce();
        if (resumed > 0) this.logger.warn({ resumed }, `stale ${queue} enqueued again`);
      },
      recover: async () => {
        const resumed = await this.recoverLostJobs();
        if (resumed > 0) {
          this.logger.warn({ resumed }, `${queue} whose job Redis lost enqueued again`);
        }
      },
    });
  }

  /**
   * Longest healthy work goes without a change: three of the slowest steps,
   * what the kind may spend beyond them, and a minute for queueing.
   */
  get staleAfterMs(): number {
    return (
      60_000 +
      (this.kind.extraQuietMs?.(this.settings) ?? 0) +
      3 * this.settings.simulatedStepMs * SLOW_STEP_MULTIPLIER
    );
  }

  /** Enqueues again every piece of stale work no pending job would run; returns how many. */
  async runOnce(): Promise<number> {
    const { queue, jobName, firstStatus } = this.kind;
    const stale = await this.kind.stale(new Date(Date.now() - this.staleAfterMs), BATCH);
    let resumed = 0;
    for (const work of stale) {
      const ids = this.jobIdsOf(work);
      // The job that would run it: the first one of work not started, or one an earlier sweep added.
      const pending = work.status === firstStatus ? [ids.first, ids.resumed] : [ids.resumed];
      if (await this.jobs.anyPending(queue, pending)) continue;
      // A resumed job that finished without moving the work (failed for good) would make
      // the add below a no-op for as long as BullMQ keeps it: it goes first.
      await this.jobs.queue(queue).remove(ids.resumed);
      resumed += 1;
      const { data, options } = this.kind.jobOf(work);
      await this.jobs.add(queue, jobName, data, { ...options, jobId: ids.resumed });
    }
    return resumed;
  }

  /**
   * After Redis lost its data: enqueues again every piece of unfinished
   * simulated work whose job is gone, however recently it changed; returns
   * how many. Work still waiting or running under its job is left alone, as
   * is work that changed after this began (something runs it). Work not
   * started gets its first job's id, its public id, so the job its `created`
   * event adds when relayed (again) is the same job; started work gets the
   * periodic sweep's id for the state found. Either way a second worker
   * recovering at the same time adds nothing. Work a worker was running when
   * Redis went carries on in that worker, since the runner needs only
   * PostgreSQL; of it and its twin, whichever finds its next step already
   * taken stops there (the runner's steps are guarded).
   */
  async recoverLostJobs(): Promise<number> {
    const { queue, jobName } = this.kind;
    return requeueLostWork(
      this.jobs,
      { queue, name: jobName, pageSize: BATCH },
      this.kind.unfinished(),
      (work) => ({ ids: this.jobIdsOf(work), ...this.kind.jobOf(work) }),
    );
  }

  /** The work's first job id (its scheduler's), the one a sweep gives it in the state found, and the one recovery gives it. */
  private jobIdsOf(work: W): WorkJobIds {
    return workJobIds(
      toPublicId(this.kind.idKind, work.id),
      work.updatedAt,
      work.status !== this.kind.firstStatus,
    );
  }
}
