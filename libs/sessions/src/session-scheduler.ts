import { Injectable, type OnModuleInit } from '@nestjs/common';
import { parsePublicId } from '#common';
import { EventDispatcher } from '#events';
import { JobProducer, QUEUE } from '#queue';

/**
 * Starts the work of a new session when its `session.created` event is
 * relayed. The job id is the session id, so a relayed event handled twice
 * still runs the session once.
 */
@Injectable()
export class SessionScheduler implements OnModuleInit {
  constructor(
    private readonly dispatcher: EventDispatcher,
    private readonly jobs: JobProducer,
  ) {}

  onModuleInit(): void {
    this.dispatcher.on('session.created', async (event) => {
      const publicId = String(event.data.session_id);
      const sessionId = parsePublicId('session', publicId);
      if (sessionId === null) throw new Error(`session.created event ${event.id} names no session`);
      await this.jobs.add(
        QUEUE.sessions,
        'run',
        {
          sessionId,
          organizationId: event.organizationId,
          mode: event.mode,
          requestId: event.requestId,
        },
        { jobId: publicId },
      );
    });
  }
}
