import { Injectable } from '@nestjs/common';
import { newKey, type Tenant } from '#common';
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
    const id = newKey('event').uuid;
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
}
