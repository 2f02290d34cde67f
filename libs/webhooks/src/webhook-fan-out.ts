import { Injectable, type OnModuleInit } from '@nestjs/common';
import { newUuid, toPublicId } from '#common';
import type { Transaction } from '#database';
import { OutboxFanOuts, type EventEntity, type OutboxFanOut } from '#events';
import { MAX_ATTEMPTS } from './retry-schedule.js';
import {
  WebhookDeliveriesRepository,
  type FanOutDelivery,
} from './webhook-deliveries.repository.js';
import { WebhooksRepository, type Subscriber } from './webhooks.repository.js';

/** Whether a webhook receives an event: subscribed to its type, registered before it happened, and not the subject of its own failure notice. */
export function receives(webhook: Subscriber, event: EventEntity): boolean {
  if (webhook.organizationId !== event.organizationId || webhook.mode !== event.mode) return false;
  if (webhook.createdAt > event.createdAt) return false;
  if (!webhook.events.includes('*') && !webhook.events.includes(event.type)) return false;
  return !(
    event.type === 'webhook.failed' && event.data.webhook_id === toPublicId('webhook', webhook.id)
  );
}

/**
 * Creates one delivery per (event, subscribed active webhook) inside the
 * relay's transaction, in one statement after reading the webhooks; the
 * relay stores each event's count with it. The unique (webhook, event) index
 * makes a repeated pass harmless; PostgreSQL holds the deliveries from here
 * on, so nothing queued in Redis can be lost.
 */
@Injectable()
export class WebhookFanOut implements OutboxFanOut, OnModuleInit {
  constructor(
    private readonly fanOuts: OutboxFanOuts,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
  ) {}

  onModuleInit(): void {
    this.fanOuts.register(this);
  }

  async fanOut(tx: Transaction, events: EventEntity[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const organizations = [...new Set(events.map((event) => event.organizationId))];
    const webhooks = await this.webhooks.subscribersAcrossTenants(organizations, tx);
    if (webhooks.length === 0) return counts;
    const deliveries: FanOutDelivery[] = [];
    for (const event of events) {
      for (const webhook of webhooks) {
        if (!receives(webhook, event)) continue;
        deliveries.push({
          id: newUuid(),
          tenant: { organizationId: event.organizationId, mode: event.mode },
          webhookId: webhook.id,
          eventId: event.id,
        });
        counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
      }
    }
    if (deliveries.length === 0) return counts;
    // One statement: the deliveries, and the deliverers woken at commit.
    await this.deliveries.insertFanOutAcrossTenants(tx, deliveries, MAX_ATTEMPTS);
    return counts;
  }
}
