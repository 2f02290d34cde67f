import { TypeOrmModule } from '@nestjs/typeorm';
import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { EventJobs } from './event-jobs.js';
import { EventLog } from './event-log.js';
import { EventTrigger } from './event-trigger.js';
import { EventReader } from './event-reader.js';
import { EventsRepository } from './events.repository.js';
import { EventReadModelRepository } from './event-read-model.repository.js';
import { OutboxFanOuts } from './outbox-fan-out.js';
import { OutboxRelay } from './outbox-relay.js';
import { SystemNotices } from './system-notices.js';
import { EVENT_ENTITIES } from './entities.js';
import { AuditEventsRepository, AuditRetention } from './audit/index.js';

/** Writing and reading events, and the registries consumers of events register with (both apps). */
@Module({
  imports: [TypeOrmModule.forFeature(EVENT_ENTITIES), DatabaseModule],
  providers: [
    EventsRepository,
    EventReadModelRepository,
    EventLog,
    EventReader,
    SystemNotices,
    EventJobs,
    OutboxFanOuts,
    EventTrigger,
    AuditEventsRepository,
  ],
  exports: [
    EventsRepository,
    EventReadModelRepository,
    EventLog,
    EventReader,
    SystemNotices,
    EventJobs,
    OutboxFanOuts,
    EventTrigger,
    AuditEventsRepository,
  ],
})
export class EventsModule {}

/** The outbox relay and the audit log's retention: the worker only. */
@Module({
  imports: [EventsModule, DatabaseModule],
  providers: [OutboxRelay, AuditRetention],
  exports: [OutboxRelay, AuditRetention],
})
export class EventsWorkModule {}
