import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newKey, type Tenant } from '#common';
import { EventEntity, type JsonObject } from '#database';
import type { EventDataMap, KnownEventType } from './catalogue.js';

/**
 * Writes events into the outbox. Always called with the EntityManager of the
 * transaction that makes the change, so the change and its event commit together.
 */
@Injectable()
export class EventLog {
  async append<T extends KnownEventType>(
    manager: EntityManager,
    tenant: Tenant,
    type: T,
    data: EventDataMap[T],
    requestId: string | null,
  ): Promise<EventEntity> {
    const event = manager.create(EventEntity, {
      id: newKey('event').uuid,
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      type,
      data: data as unknown as JsonObject,
      requestId,
      pendingWebhooks: 0,
    });
    await manager.insert(EventEntity, event);
    return event;
  }
}
