import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobProducer, PeriodicTasks, QUEUE } from '#queue';

/** A failed run is not retried: the next interval runs the task again. A few finished jobs are kept for inspection. */
const TEMPLATE = { opts: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 } };

/**
 * Runs the features' periodic tasks. Each is a BullMQ job scheduler (one per
 * task, upserted by every worker that starts), so a task runs once per
 * interval across all workers; schedulers of tasks no longer registered go.
 */
@Processor(QUEUE.maintenance)
export class MaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(MaintenanceProcessor.name);

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
    for (const task of this.tasks.all()) {
      await queue.upsertJobScheduler(
        task.name,
        { every: task.everyMs },
        { name: task.name, data: {}, ...TEMPLATE },
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
