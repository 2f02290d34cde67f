import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { AppSettings } from '#config';
import { JobProducer, pauseDuringOutage, QUEUE, type JobData } from '#queue';
import { PluggedWork } from '#work';

/** Runs the work of kinds plugged into libs/work without a queue of their own (PluggedWork). */
@Processor(QUEUE.work)
export class WorkProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(WorkProcessor.name);

  constructor(
    private readonly plugged: PluggedWork,
    private readonly settings: AppSettings,
    private readonly jobs: JobProducer,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.settings.workerConcurrency;
  }

  async process(job: Job<JobData<'work', 'run'>>): Promise<void> {
    // PostgreSQL away: the job waits, its attempts untouched, and resumes from the stored state.
    await pauseDuringOutage(this.jobs.queue(QUEUE.work), () => this.plugged.run(job.data));
  }

  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.logger.warn({ err: error }, 'work queue worker error');
  }
}
