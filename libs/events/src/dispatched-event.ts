import type { DispatchedEvent } from '#queue';
import { EventEntity } from './event.entity.js';

/** What a dispatch job carries of an event: everything a handler reads. */
export function dispatchedEvent(event: EventEntity): DispatchedEvent {
  return {
    id: event.id,
    organizationId: event.organizationId,
    mode: event.mode,
    type: event.type,
    data: event.data,
    requestId: event.requestId,
    createdAt: event.createdAt.toISOString(),
  };
}

/** The event a dispatch job carried, as the handlers take it (without what none reads: the pending webhook count, the relay time). */
export function eventOfDispatch(carried: DispatchedEvent): EventEntity {
  return Object.assign(new EventEntity(), {
    ...carried,
    data: carried.data as EventEntity['data'],
    createdAt: new Date(carried.createdAt),
    pendingWebhooks: 0,
    targetWebhookId: null,
    relayedAt: null,
  });
}
