import { Injectable } from '@nestjs/common';
import { EventJobs } from '#events';
import { QUEUE } from '#queue';
import { WorkScheduler } from '#work';

/** Starts the work of a new session with its `session.created` event (WorkScheduler). */
@Injectable()
export class SessionScheduler extends WorkScheduler<'sessions', 'run'> {
  constructor(eventJobs: EventJobs) {
    super(
      {
        createdEvent: 'session.created',
        idKind: 'session',
        queue: QUEUE.sessions,
        jobName: 'run',
        jobOf: (sessionId, event) => ({
          data: {
            sessionId,
            organizationId: event.organizationId,
            mode: event.mode,
            requestId: event.requestId,
          },
        }),
      },
      eventJobs,
    );
  }
}
