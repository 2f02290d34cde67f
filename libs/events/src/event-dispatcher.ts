import { Injectable, Logger } from '@nestjs/common';
import type { EventEntity } from './event.entity.js';
import type { KnownEventType } from './catalogue.js';

export type EventHandler = (event: EventEntity) => Promise<void>;

/**
 * Consumers of relayed events register here by event type. Handlers must be
 * idempotent: a job can run more than once after a crash.
 */
@Injectable()
export class EventDispatcher {
  private readonly logger = new Logger(EventDispatcher.name);
  private readonly handlers = new Map<string, EventHandler[]>();

  on(type: KnownEventType | '*', handler: EventHandler): void {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), handler]);
  }

  /** Whether an event of this type has anything to run: the relay queues a job only for those. */
  handles(type: string): boolean {
    return this.handlers.has(type) || this.handlers.has('*');
  }

  async dispatch(event: EventEntity): Promise<void> {
    const handlers = [...(this.handlers.get(event.type) ?? []), ...(this.handlers.get('*') ?? [])];
    for (const handler of handlers) await handler(event);
    this.logger.debug({ eventType: event.type, handlers: handlers.length }, 'event dispatched');
  }
}
