import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { EventJobs, EventReader, eventOfDispatch } from '#events';
import { JobProducer, pauseDuringOutage, QUEUE, type JobData } from '#queue';

/**
 * Runs the dispatch jobs that workers of earlier versions queued for relayed
 * events (the relay now queues the work itself): each queues the work its
 * event starts, so an upgrade with such jobs still waiting loses none.
 */
@Processor(QUEUE.events, { concurrency: 20 })
export class EventsProcessor extends WorkerHost {
  private readonly logger = new Logger(EventsProcessor.name);

  constructor(
    private readonly events: EventReader,
    private readonly eventJobs: EventJobs,
    private readonly jobs: JobProducer,
  ) {
    super();
  }

  async process(job: Job<JobData<'events', 'dispatch'>>): Promise<void> {
    // PostgreSQL away: the job waits, its attempts untouched (the work's job ids make it idempotent).
    await pauseDuringOutage(this.jobs.queue(QUEUE.events), async () => {
      const { event: carried, eventId } = job.data;
      const event = carried ? eventOfDispatch(carried) : await this.events.byId(eventId);
      // Pruned by retention before it was handled: nothing left to do.
      if (!event) return;
      await this.jobs.addAll(this.eventJobs.jobsOf([event]));
    });
  }

  /**
   * Errors of the queue worker itself (Redis gone, or a job whose keys Redis lost). Logged
   * here: a BullMQ worker without an "error" listener prints them to stderr as bare stack traces.
   */
  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.logger.warn({ err: error }, 'events queue worker error');
  }
}
