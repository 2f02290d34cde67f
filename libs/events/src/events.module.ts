import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { EventDispatcher } from './event-dispatcher.js';
import { EventLog } from './event-log.js';
import { EventReader } from './event-reader.js';
import { SystemNotices } from './system-notices.js';

/** Writing events (both apps). The relay is provided by the worker only: see OutboxRelayModule. */
@Module({
  imports: [DatabaseModule],
  providers: [EventLog, EventReader, SystemNotices, EventDispatcher],
  exports: [EventLog, EventReader, SystemNotices, EventDispatcher],
})
export class EventsModule {}
