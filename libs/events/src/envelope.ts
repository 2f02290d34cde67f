import { toPublicId } from '#common';
import type { EventEntity } from './event.entity.js';

/** The spec's event envelope, as delivered to webhooks and listed in the event log. */
export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
  livemode: boolean;
  pending_webhooks: number;
}

export function toEnvelope(event: EventEntity): EventEnvelope {
  return {
    id: toPublicId('event', event.id),
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data: event.data,
    livemode: event.mode === 'live',
    pending_webhooks: event.pendingWebhooks,
  };
}
