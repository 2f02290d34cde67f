import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobProducer, PeriodicTasks, QUEUE } from '#queue';

/** A failed run is not retried: the next interval runs the task again. A few finished jobs are kept for inspection. */
const TEMPLATE = { opts: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 } };
/** How often a running worker checks that every task still has its scheduler. */
export const SCHEDULER_CHECK_MS = 30_000;

/**
 * Runs the features' periodic tasks. Each is a BullMQ job scheduler (one per
 * task, upserted by every worker that starts), so a task runs once per
 * interval across all workers; schedulers of tasks no longer registered go.
 * Schedulers live in Redis: if Redis comes back empty, every running worker
 * puts the missing ones back within SCHEDULER_CHECK_MS, so the sweeps that
 * re-enqueue work whose job was lost with it keep running.
 */
@Processor(QUEUE.maintenance)
export class MaintenanceProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger(MaintenanceProcessor.name);
  private check: NodeJS.Timeout | null = null;

  constructor(
    private readonly tasks: PeriodicTasks,
    private readonly jobs: JobProducer,
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
    this.check = setInterval(() => void this.restoreMissing(), SCHEDULER_CHECK_MS);
    this.check.unref();
  }

  onApplicationShutdown(): void {
    if (this.check) clearInterval(this.check);
  }

  /** Puts back the schedulers Redis lost; those present are left alone (an upsert could run them early). */
  private async restoreMissing(): Promise<void> {
    try {
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
    } catch (error) {
      // Redis away: the next check tries again.
      this.logger.debug({ err: error }, 'could not check the periodic task schedulers');
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
    const outcome = await task.run();
    // A run that found nothing to do is not worth a log line.
    if (outcome && Object.values(outcome).some((value) => value !== 0 && value !== null)) {
      this.logger.log({ task: task.name, ...outcome }, 'periodic task done');
    }
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
