import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { EventDispatcher } from './event-dispatcher.js';
import { EventLog } from './event-log.js';

/** Writing events (both apps). The relay is provided by the worker only: see OutboxRelayModule. */
@Module({
  imports: [DatabaseModule],
  providers: [EventLog, EventDispatcher],
  exports: [EventLog, EventDispatcher],
})
export class EventsModule {}
