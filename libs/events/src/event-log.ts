import { Injectable } from '@nestjs/common';
import { newUuid, type Tenant } from '#common';
import type { EventDataMap, KnownEventType } from './catalogue.js';
import type { Transaction } from '#database';
import { EventsRepository } from './events.repository.js';
import type { InternalEventDataMap, InternalEventType } from './internal-events.js';

/** One event to write with others: its tenant, name and data. */
export type NewEvent = {
  [T in KnownEventType]: { tenant: Tenant; type: T; data: EventDataMap[T] };
}[KnownEventType];

/**
 * Writes events into the outbox. Always called with the transaction that
 * makes the change, so the change and its event commit together.
 */
@Injectable()
export class EventLog {
  constructor(private readonly events: EventsRepository) {}

  /** Returns the stored id of the new event. */
  async append<T extends KnownEventType>(
    tx: Transaction,
    tenant: Tenant,
    type: T,
    data: EventDataMap[T],
    requestId: string | null,
  ): Promise<string> {
    return this.insert(tx, tenant, type, data, requestId);
  }

  /**
   * An internal event (internal-events.ts): it starts the work registered for
   * it with EventJobs and is never delivered, published or listed. Returns
   * its stored id.
   */
  async appendInternal<T extends InternalEventType>(
    tx: Transaction,
    tenant: Tenant,
    type: T,
    data: InternalEventDataMap[T],
    requestId: string | null,
  ): Promise<string> {
    return this.insert(tx, tenant, type, data, requestId);
  }

  /**
   * Several events of one change in one statement, in the order given (as
   * many `append` calls would write them): for changes that touch many
   * resources at once. Returns the stored ids, in that order.
   */
  async appendMany(
    tx: Transaction,
    events: readonly NewEvent[],
    requestId: string | null,
  ): Promise<string[]> {
    if (events.length === 0) return [];
    const records = events.map((event) => ({ ...event, id: newUuid() }));
    await this.events.insertManyAcrossTenants(tx, records, requestId);
    return records.map((record) => record.id);
  }

  /**
   * After a resource is deleted: the data of every event that named it
   * (`data.<idField>` = its public id) shrinks to that id, the sequence and
   * `"redacted": true`, so replays and pending deliveries carry nothing of
   * it. Bounded by the tenant index: only events since the resource was
   * created can name it.
   */
  async redact(
    tx: Transaction,
    tenant: Tenant,
    idField: `${string}_id`,
    publicId: string,
    since: Date,
  ): Promise<void> {
    await this.events.redact(tx, tenant, idField, publicId, since);
  }

  private async insert(
    tx: Transaction,
    tenant: Tenant,
    type: string,
    data: object,
    requestId: string | null,
  ): Promise<string> {
    const id = newUuid();
    await this.events.insert(tx, tenant, { id, type, data }, requestId);
    return id;
  }
}
