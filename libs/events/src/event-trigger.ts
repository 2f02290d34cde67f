import { Injectable } from '@nestjs/common';
import { toPublicId, type Tenant } from '#common';
import { Sql } from '#database';
import type { EventType } from './catalogue.js';
import { EventLog } from './event-log.js';
import { triggeredEventData } from './sample-events.js';

/**
 * `sas events trigger`: one sample event of a type, marked `"test": true`,
 * written to the outbox like any other — so the relay fans it out to the
 * webhooks subscribed to its type, to `listen` sockets and to the event log.
 * The relay queues no worker job for it: a sample `session.created` names no
 * real session to run.
 */
@Injectable()
export class EventTrigger {
  constructor(
    private readonly sql: Sql,
    private readonly log: EventLog,
  ) {}

  /** The public id (`evt_…`) of the new event. */
  async trigger(tenant: Tenant, type: EventType, requestId: string | null): Promise<string> {
    const id = await this.sql.transaction((tx) =>
      this.log.append(tx, tenant, type, triggeredEventData(type), requestId),
    );
    return toPublicId('event', id);
  }
}
