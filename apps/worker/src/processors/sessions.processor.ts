import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { AppSettings } from '#config';
import { JobProducer, pauseDuringOutage, QUEUE, type JobData } from '#queue';
import { SessionRunner } from '#sessions';

/**
 * Runs sessions. A job stays active while its session progresses, so the
 * concurrency (WORKER_CONCURRENCY) is the number of sessions one worker carries at once.
 */
@Processor(QUEUE.sessions)
export class SessionsProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(SessionsProcessor.name);

  constructor(
    private readonly runner: SessionRunner,
    private readonly settings: AppSettings,
    private readonly jobs: JobProducer,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.settings.workerConcurrency;
  }

  async process(job: Job<JobData<'sessions', 'run'>>): Promise<void> {
    // PostgreSQL away: the job waits, its attempts untouched, and resumes from the stored state.
    await pauseDuringOutage(this.jobs.queue(QUEUE.sessions), () =>
      this.runner.run(
        { organizationId: job.data.organizationId, mode: job.data.mode },
        job.data.sessionId,
        job.data.requestId,
      ),
    );
  }

  /**
   * Errors of the queue worker itself (Redis gone, or a job whose keys Redis lost: "Missing
   * key for job … moveToFinished"; the sweep enqueues such a session again). Logged here:
   * a BullMQ worker without an "error" listener prints them to stderr as bare stack traces.
   */
  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.logger.warn({ err: error }, 'sessions queue worker error');
  }
}
