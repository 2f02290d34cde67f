import type { EventEntity } from '#events';
import type { EnvelopeFormat } from './entities/webhook.entity.js';
import { toEnvelope } from '#events';

/**
 * The body of a delivery. `standard` is the spec's envelope; `v1` is the short
 * version 1 envelope (`event`, `data`, `timestamp`) plus the event `id`, which
 * receivers need to drop duplicates.
 */
export function deliveryBody(event: EventEntity, format: EnvelopeFormat): string {
  const envelope = toEnvelope(event);
  if (format === 'v1') {
    return JSON.stringify({
      id: envelope.id,
      event: envelope.type,
      data: envelope.data,
      timestamp: envelope.created_at,
    });
  }
  return JSON.stringify(envelope);
}
