import type { DispatchedEvent } from '#queue';
import { EventEntity } from './event.entity.js';

/** The event a dispatch job of an earlier version carried, as EventJobs takes it (without what none reads: the pending webhook count, the relay time). */
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
