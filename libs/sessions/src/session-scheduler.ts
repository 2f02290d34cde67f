import { Injectable, type OnModuleInit } from '@nestjs/common';
import { parsePublicId } from '#common';
import { EventJobs } from '#events';
import { QUEUE } from '#queue';

/**
 * Starts the work of a new session: the relay queues its run with its
 * `session.created` event. The job id is the session id, so an event relayed
 * twice still runs the session once.
 */
@Injectable()
export class SessionScheduler implements OnModuleInit {
  constructor(private readonly eventJobs: EventJobs) {}

  onModuleInit(): void {
    this.eventJobs.on('session.created', (event) => {
      const publicId = String(event.data.session_id);
      const sessionId = parsePublicId('session', publicId);
      if (sessionId === null) throw new Error(`session.created event ${event.id} names no session`);
      return {
        queue: QUEUE.sessions,
        name: 'run',
        data: {
          sessionId,
          organizationId: event.organizationId,
          mode: event.mode,
          requestId: event.requestId,
        },
        options: { jobId: publicId },
      };
    });
  }
}
