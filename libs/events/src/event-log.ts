import { Injectable } from '@nestjs/common';
import { newUuid, type Tenant } from '#common';
import type { SqlExecutor } from '#database';
import type { EventDataMap, KnownEventType } from './catalogue.js';

const INSERT_EVENT = `INSERT INTO events (id, organization_id, mode, type, data, request_id)
  VALUES ($1, $2, $3, $4, $5, $6)`;

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
