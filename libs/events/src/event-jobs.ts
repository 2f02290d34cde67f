import { Injectable, Logger } from '@nestjs/common';
import { toPublicId } from '#common';
import type { QueuedJob } from '#queue';
import type { EventEntity } from './event.entity.js';
import type { OutboxEventType } from './internal-events.js';

/** The job an event starts: work only, no I/O, so the relay can queue it with the event. */
export type JobOfEvent = (event: EventEntity) => QueuedJob;

/**
 * The work that events start (a session's run on `session.created`, an
 * analysis's on `analysis.created`, a report's build on the internal
 * `internal.report_requested`), registered by event type. The outbox
 * relay queues these jobs itself, in the pass that relays their events and
 * before it marks them relayed: the work starts one hop after the commit, not
 * through a dispatch job of its own. Each job's id names its work, so an event
 * relayed twice (a crash between the add and the mark) still starts it once.
 */
@Injectable()
export class EventJobs {
  private readonly logger = new Logger(EventJobs.name);
  private readonly starters = new Map<string, JobOfEvent[]>();

  on(type: OutboxEventType, jobOf: JobOfEvent): void {
    this.starters.set(type, [...(this.starters.get(type) ?? []), jobOf]);
  }

  /**
   * The jobs these events start. An event whose job cannot be made (its data
   * names no work: a bug, logged) starts nothing rather than hold up the
   * outbox behind it.
   */
  jobsOf(events: readonly EventEntity[]): QueuedJob[] {
    const jobs: QueuedJob[] = [];
    for (const event of events) {
      for (const jobOf of this.starters.get(event.type) ?? []) {
        try {
          jobs.push(jobOf(event));
        } catch (error) {
          this.logger.error(
            { err: error, event: toPublicId('event', event.id), eventType: event.type },
            'the work this event starts could not be queued',
          );
        }
      }
    }
    return jobs;
  }
}
