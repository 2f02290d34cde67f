import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newUuid, toPublicId } from '#common';
import type { EventEntity } from '#events';
import { OutboxFanOuts, type OutboxFanOut } from '#events';
import { DELIVERIES_CHANNEL } from './delivery-notifications.js';
import { MAX_ATTEMPTS } from './retry-schedule.js';

interface Subscriber {
  id: string;
  organization_id: string;
  mode: string;
  events: string[];
  created_at: Date;
}

/** Whether a webhook receives an event: subscribed to its type, registered before it happened, and not the subject of its own failure notice. */
export function receives(webhook: Subscriber, event: EventEntity): boolean {
  if (webhook.organization_id !== event.organizationId || webhook.mode !== event.mode) return false;
  if (webhook.created_at > event.createdAt) return false;
  if (!webhook.events.includes('*') && !webhook.events.includes(event.type)) return false;
  return !(
    event.type === 'webhook.failed' && event.data.webhook_id === toPublicId('webhook', webhook.id)
  );
}

/**
 * Creates one delivery per (event, subscribed active webhook) inside the
 * relay's transaction, in one statement after reading the webhooks. The
 * unique (webhook, event) index makes a repeated pass harmless; PostgreSQL holds the deliveries from here on, so nothing
 * queued in Redis can be lost.
 */
@Injectable()
export class WebhookFanOut implements OutboxFanOut, OnModuleInit {
  constructor(private readonly fanOuts: OutboxFanOuts) {}

  onModuleInit(): void {
    this.fanOuts.register(this);
  }

  async fanOut(manager: EntityManager, events: EventEntity[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const organizations = [...new Set(events.map((event) => event.organizationId))];
    const webhooks: Subscriber[] = await manager.query(
      `SELECT id, organization_id, mode, events, created_at FROM webhooks
        WHERE active AND organization_id = ANY($1::uuid[])`,
      [organizations],
    );
    if (webhooks.length === 0) return counts;
    const rows = { id: [] as string[], webhook: [] as string[], event: [] as string[] };
    const tenants = { organization: [] as string[], mode: [] as string[] };
    for (const event of events) {
      for (const webhook of webhooks) {
        if (!receives(webhook, event)) continue;
        rows.id.push(newUuid());
        rows.webhook.push(webhook.id);
        rows.event.push(event.id);
        tenants.organization.push(event.organizationId);
        tenants.mode.push(event.mode);
        counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
      }
    }
    if (rows.id.length === 0) return counts;
    // One statement: the deliveries, the events' pending counts, and the deliverers woken at commit.
    await manager.query(
      `WITH deliveries AS (
         INSERT INTO webhook_deliveries
           (id, organization_id, mode, webhook_id, event_id, origin, max_attempts, next_attempt_at)
         SELECT d.id, d.organization_id, d.mode, d.webhook_id, d.event_id, 'event', $6, now()
           FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[])
             AS d(id, organization_id, mode, webhook_id, event_id)
         ON CONFLICT (webhook_id, event_id) WHERE origin = 'event' DO NOTHING
       ), pending AS (
         UPDATE events e SET pending_webhooks = c.pending
           FROM unnest($7::uuid[], $8::int[]) AS c(id, pending) WHERE e.id = c.id
       )
       SELECT pg_notify('${DELIVERIES_CHANNEL}', '')`,
      [
        rows.id,
        tenants.organization,
        tenants.mode,
        rows.webhook,
        rows.event,
        MAX_ATTEMPTS,
        [...counts.keys()],
        [...counts.values()],
      ],
    );
    return counts;
  }
}
