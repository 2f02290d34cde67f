import { Processor, WorkerHost } from '@nestjs/bullmq';
import { InjectRepository } from '@nestjs/typeorm';
import type { Job } from 'bullmq';
import type { Repository } from 'typeorm';
import { EventEntity } from '#database';
import { EventDispatcher } from '#events';
import { QUEUE, type JobData } from '#queue';

/** Hands each relayed event to the handlers registered for its type. */
@Processor(QUEUE.events, { concurrency: 20 })
export class EventsProcessor extends WorkerHost {
  constructor(
    @InjectRepository(EventEntity) private readonly events: Repository<EventEntity>,
    private readonly dispatcher: EventDispatcher,
  ) {
    super();
  }

  async process(job: Job<JobData<'events', 'dispatch'>>): Promise<void> {
    const event = await this.events.findOneBy({ id: job.data.eventId });
    // Pruned by retention before it was handled: nothing left to do.
    if (!event) return;
    await this.dispatcher.dispatch(event);
  }
}
