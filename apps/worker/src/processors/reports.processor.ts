import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { ReportRunner } from '#reports';
import { JobProducer, pauseDuringOutage, QUEUE, type JobData } from '#queue';

/**
 * Builds reports, one at a time per worker (the queue's default concurrency):
 * a build holds a cursor and the document in memory, so reports do not
 * crowd out each other's memory.
 */
@Processor(QUEUE.reports)
export class ReportsProcessor extends WorkerHost {
  private readonly logger = new Logger(ReportsProcessor.name);

  constructor(
    private readonly runner: ReportRunner,
    private readonly jobs: JobProducer,
  ) {
    super();
  }

  async process(job: Job<JobData<'reports', 'build'>>): Promise<void> {
    // PostgreSQL away: the job waits, its attempts untouched, and resumes from the stored state.
    await pauseDuringOutage(this.jobs.queue(QUEUE.reports), () =>
      this.runner.run(job.data.reportId, job.data.requestId),
    );
  }

  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.logger.warn({ err: error }, 'reports queue worker error');
  }
}
