import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { AnalysisRunner } from '#analyses';
import { AppSettings } from '#config';
import { JobProducer, pauseDuringOutage, QUEUE, type JobData } from '#queue';

/**
 * Runs analyses, highest priority first (BullMQ job priorities). A job stays
 * active while its analysis goes through its steps, so WORKER_CONCURRENCY is
 * the number of analyses one worker carries at once.
 */
@Processor(QUEUE.analyses)
export class AnalysesProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(AnalysesProcessor.name);

  constructor(
    private readonly runner: AnalysisRunner,
    private readonly settings: AppSettings,
    private readonly jobs: JobProducer,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.settings.workerConcurrency;
  }

  async process(job: Job<JobData<'analyses', 'run'>>): Promise<void> {
    // PostgreSQL away: the job waits, its attempts untouched, and resumes from the stored state.
    await pauseDuringOutage(this.jobs.queue(QUEUE.analyses), () =>
      this.runner.run(job.data.analysisId, job.data.requestId),
    );
  }

  /** Errors of the queue worker itself, logged rather than printed as bare stack traces. */
  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.logger.warn({ err: error }, 'analyses queue worker error');
  }
}
