import { Injectable } from '@nestjs/common';
import { newUuid, type Tenant } from '#common';
import type { SqlExecutor } from '#database';
import type { EventDataMap, KnownEventType } from './catalogue.js';

const INSERT_EVENT = `INSERT INTO events (id, organization_id, mode, type, data, request_id)
  VALUES ($1, $2, $3, $4, $5, $6)`;

/** Rows in the order given: `created_at` (clock_timestamp) and the UUIDv7 ids both follow it. */
const INSERT_EVENTS = `INSERT INTO events (id, organization_id, mode, type, data, request_id)
  SELECT id, organization_id, mode, type, data, $6
    FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::jsonb[])
      WITH ORDINALITY AS e(id, organization_id, mode, type, data, position)
   ORDER BY position`;

/** One event to write with others: its tenant, name and data. */
export type NewEvent = {
  [T in KnownEventType]: { tenant: Tenant; type: T; data: EventDataMap[T] };
}[KnownEventType];

/**
 * Writes events into the outbox. Always called with the executor of the
 * transaction that makes the change, so the change and its event commit together.
 */
@Injectable()
export class EventLog {
  /** Returns the stored id of the new event. */
  async append<T extends KnownEventType>(
    tx: SqlExecutor,
    tenant: Tenant,
    type: T,
    data: EventDataMap[T],
    requestId: string | null,
  ): Promise<string> {
    const id = newUuid();
    await tx.query(INSERT_EVENT, [
      id,
      tenant.organizationId,
      tenant.mode,
      type,
      JSON.stringify(data),
      requestId,
    ]);
    return id;
  }

  /**
   * Several events of one change in one statement, in the order given (as
   * many `append` calls would write them): for changes that touch many
   * resources at once. Returns the stored ids, in that order.
   */
  async appendMany(
    tx: SqlExecutor,
    events: readonly NewEvent[],
    requestId: string | null,
  ): Promise<string[]> {
    if (events.length === 0) return [];
    const ids = events.map(() => newUuid());
    await tx.query(INSERT_EVENTS, [
      ids,
      events.map((event) => event.tenant.organizationId),
      events.map((event) => event.tenant.mode),
      events.map((event) => event.type),
      events.map((event) => JSON.stringify(event.data)),
      requestId,
    ]);
    return ids;
  }

  /**
   * After a resource is deleted: the data of every event that named it
   * (`data.<idField>` = its public id) shrinks to that id, the sequence and
   * `"redacted": true`, so replays and pending deliveries carry nothing of
   * it. Bounded by the tenant index: only events since the resource was
   * created can name it.
   */
  async redact(
    tx: SqlExecutor,
    tenant: Tenant,
    idField: 'session_id' | 'analysis_id' | 'query_id',
    publicId: string,
    since: Date,
  ): Promise<void> {
    await tx.query(
      `UPDATE events
          SET data = jsonb_build_object($4::text, data->$4, 'sequence', data->'sequence', 'redacted', true)
        WHERE organization_id = $1 AND mode = $2 AND created_at >= $3 AND data->>$4 = $5`,
      [tenant.organizationId, tenant.mode, since, idField, publicId],
    );
  }
}
