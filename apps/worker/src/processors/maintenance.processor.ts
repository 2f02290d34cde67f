import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import {
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Job } from 'bullmq';
import {
  JobProducer,
  PeriodicTasks,
  QUEUE,
  RedisDataLoss,
  RedisService,
  type TaskOutcome,
} from '#queue';

/** A failed run is not retried: the next interval runs the task again. A few finished jobs are kept for inspection. */
const TEMPLATE = { opts: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 } };
/** How often a running worker checks that Redis kept its data and every task its scheduler. */
export const SCHEDULER_CHECK_MS = 30_000;

/**
 * Runs the features' periodic tasks. Each is a BullMQ job scheduler (one per
 * task, upserted by every worker that starts), so a task runs once per
 * interval across all workers; schedulers of tasks no longer registered go.
 *
 * Schedulers and jobs live in Redis. Every worker checks that Redis kept its
 * data when it starts, each time its Redis connection is ready again after a
 * reconnection, and every SCHEDULER_CHECK_MS (RedisDataLoss): it puts back
 * the schedulers that are missing, and the one worker that finds the data
 * gone runs the tasks' `recover` at once, which enqueue again the work whose
 * job was lost, rather than leaving it to the sweeps' next run and their
 * staleness threshold (minutes).
 */
@Processor(QUEUE.maintenance)
export class MaintenanceProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger(MaintenanceProcessor.name);
  private check: NodeJS.Timeout | null = null;
  /** The check under way, if any: checks asked for meanwhile join it. */
  private checking: Promise<void> | null = null;
  private stopping = false;
  private readonly onRedisReady = () => void this.checkRedis('reconnected');

  constructor(
    private readonly tasks: PeriodicTasks,
    private readonly jobs: JobProducer,
    private readonly redis: RedisService,
    private readonly dataLoss: RedisDataLoss,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    const queue = this.jobs.queue(QUEUE.maintenance);
    const wanted = new Set(this.tasks.all().map((task) => task.name));
    for (const old of await queue.getJobSchedulers()) {
      if (old.key && !wanted.has(old.key)) await queue.removeJobScheduler(old.key);
    }
    // Every one upserted at start, so a changed interval takes effect.
    await this.upsert(this.tasks.all().map((task) => task.name));
    // Redis may have lost its data while no worker ran: checked at once, without holding up
    // the start (a recovery reads every unfinished piece of work).
    void this.checkRedis('start');
    this.redis.client.on('ready', this.onRedisReady);
    this.check = setInterval(() => void this.checkRedis('interval'), SCHEDULER_CHECK_MS);
    this.check.unref();
  }

  /** A check under way finishes (a recovery starts no further task) while PostgreSQL and Redis are open. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.redis.client.off('ready', this.onRedisReady);
    if (this.check) clearInterval(this.check);
    await this.checking;
  }

  /**
   * Whether Redis kept its data: puts back the schedulers it lost (at start
   * they were all just upserted), and when this worker is the one to find its
   * data marker gone, runs every task's `recover`. A failure (Redis or
   * PostgreSQL away) leaves it to the next check.
   */
  checkRedis(reason: 'start' | 'reconnected' | 'interval'): Promise<void> {
    if (this.stopping) return Promise.resolve();
    this.checking ??= (async () => {
      try {
        const lost = await this.dataLoss.markersWereGone();
        if (reason !== 'start') await this.restoreMissing();
        if (lost) await this.recover(reason);
      } catch (error) {
        this.logger.debug({ err: error }, 'could not check whether Redis kept its data');
      } finally {
        this.checking = null;
      }
    })();
    return this.checking;
  }

  /** Puts back the schedulers Redis lost; those present are left alone (an upsert could run them early). */
  private async restoreMissing(): Promise<void> {
    const present = new Set(
      (await this.jobs.queue(QUEUE.maintenance).getJobSchedulers()).map((s) => s.key),
    );
    const missing = this.tasks
      .all()
      .map((task) => task.name)
      .filter((name) => !present.has(name));
    if (missing.length === 0) return;
    await this.upsert(missing);
    this.logger.warn({ tasks: missing }, 'periodic task schedulers were missing; restored');
  }

  /** Each task's recovery in turn; one that fails does not keep the others from theirs. */
  private async recover(reason: string): Promise<void> {
    const recovering = this.tasks.all().filter((task) => task.recover);
    // At start it is mostly the first start on this Redis, with nothing lost: no warning.
    const log = reason === 'start' ? 'log' : 'warn';
    this.logger[log](
      { reason, tasks: recovering.map((task) => task.name) },
      'Redis data marker gone; recovering work whose job it lost',
    );
    for (const task of recovering) {
      if (this.stopping) return;
      try {
        this.logOutcome(task.name, await task.recover!());
      } catch (error) {
        // The task's periodic run, with its thresholds, picks up what this missed.
        this.logger.warn({ err: error, task: task.name }, 'recovery failed');
      }
    }
  }

  private logOutcome(task: string, outcome: TaskOutcome): void {
    // A run that found nothing to do is not worth a log line.
    if (outcome && Object.values(outcome).some((value) => value !== 0 && value !== null)) {
      this.logger.log({ task, ...outcome }, 'periodic task done');
    }
  }

  private async upsert(names: readonly string[]): Promise<void> {
    const queue = this.jobs.queue(QUEUE.maintenance);
    for (const name of names) {
      await queue.upsertJobScheduler(
        name,
        { every: this.tasks.get(name)!.everyMs },
        { name, data: {}, ...TEMPLATE },
      );
    }
  }

  async process(job: Job): Promise<void> {
    const task = this.tasks.get(job.name);
    if (!task) return;
    this.logOutcome(task.name, await task.run());
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, error: Error): void {
    this.logger.warn(
      { err: error, task: job?.name },
      'periodic task failed; it runs again at its next interval',
    );
  }

  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.logger.warn({ err: error }, 'maintenance queue worker error');
  }
}
