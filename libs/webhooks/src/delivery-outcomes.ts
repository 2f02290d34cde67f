import { Injectable } from '@nestjs/common';
import { toPublicId, type Tenant } from '#common';
import { Sql, type Transaction } from '#database';
import { EventLog, EventsRepository, type EventEntity } from '#events';
import { withEvents, type ClaimedDelivery, type ClaimedWebhook } from './delivery-claims.js';
import {
  DeliveryLeasesRepository,
  LEASE_SECONDS,
  type DeliveryOutcome,
} from './delivery-leases.repository.js';
import type { DeliveryState } from './entities/webhook-delivery.entity.js';
import type { SendOutcome } from './webhook-sender.js';
import { WebhooksRepository } from './webhooks.repository.js';

/**
 * A slot is handed over only while its lease is younger than this: an older
 * lease may have run out by the time the statement runs, and another worker may
 * hold the delivery (and the slot) by then.
 */
const HANDOVER_MAX_LEASE_AGE_MS = (LEASE_SECONDS * 1000) / 2;

/** How a delivery's attempt (or its cancellation) ended, ready to be written. */
export interface DeliveryResult {
  delivery: ClaimedDelivery;
  /** The delivery's state after this: `pending` with `delayMs` when another attempt follows. */
  state: DeliveryState;
  /** Attempts made, this one included (unchanged for a cancellation). */
  attempts: number;
  delayMs: number;
  statusCode: number | null;
  /** The delivery's `last_error`. */
  error: string | null;
  /** The attempt's record; null when the delivery was cancelled without one. */
  attempt: { startedAt: Date; outcome: SendOutcome } | null;
  /** What this outcome does to the webhook: back to enabled, disabled (410) or failed (exhausted). */
  webhookChange: 'recovered' | 'gone' | 'exhausted' | null;
}

/**
 * Writes a batch of delivery outcomes in one transaction: the attempts and
 * the deliveries (one statement, which also leases the freed slots' next
 * deliveries), the events' pending counts (one statement, which also reads
 * the events of the deliveries leased), and what an outcome does to its
 * webhook when it does anything (rare).
 *
 * Lock order. Several workers write outcomes at once, and their batches share
 * events (an event fans out to many endpoints, whose deliveries end on
 * different workers) and webhooks. Row locks used to be taken in whatever order
 * the plan met the rows: the events' `pending_webhooks` in the order of a hash
 * aggregate over the batch, the webhooks' status changes in the order answers
 * arrived. Two batches holding events {A, B} locked A then B and B then A, and
 * PostgreSQL ended one with a deadlock (40P01); its outcome stayed unwritten,
 * so the delivery was sent again when its lease ran out (issue 38). Every
 * writer of these rows now locks them in one order: the deliveries, by id;
 * then the events, by id; then the webhooks, by id (WebhooksService.delete,
 * a retried delivery and the claim follow the same order). The handover's
 * deliveries are taken after the outcomes' with SKIP LOCKED, so it never
 * waits while holding them. Test: webhook-outcome-locks.e2e-spec.ts.
 */
@Injectable()
export class DeliveryOutcomes {
  constructor(
    private readonly sql: Sql,
    private readonly leases: DeliveryLeasesRepository,
    private readonly webhooks: WebhooksRepository,
    private readonly events: EventsRepository,
    private readonly eventLog: EventLog,
  ) {}

  /** Writes `results`; with `handOver`, returns the deliveries leased in the freed slots' place. */
  async write(results: DeliveryResult[], handOver = false): Promise<ClaimedDelivery[]> {
    if (results.length === 0) return [];
    const now = Date.now();
    /** Deliveries whose slot is handed over once their outcome is written. */
    const slots = handOver
      ? results
          .filter((result) => now - result.delivery.leasedAt.getTime() < HANDOVER_MAX_LEASE_AGE_MS)
          .map((result) => result.delivery.id)
      : [];
    return this.sql.transaction(async (tx) => {
      const written = await this.leases.writeOutcomesAcrossTenants(
        tx,
        results.map(outcomeOf),
        slots,
      );
      const events =
        written.settled.size === 0 && written.handedOver.length === 0
          ? []
          : await this.events.settlePendingWebhooksAcrossTenants(
              tx,
              written.settled,
              written.handedOver.map((delivery) => delivery.eventId),
            );
      // The webhooks last, by id (a stable sort: one webhook's changes keep their order).
      const byWebhook = [...results].sort((a, b) =>
        compare(a.delivery.webhookId, b.delivery.webhookId),
      );
      for (const result of byWebhook) await this.changeWebhook(tx, result);
      return withEvents(written.handedOver, events);
    });
  }

  private async changeWebhook(tx: Transaction, result: DeliveryResult): Promise<void> {
    const { webhook, event } = result.delivery;
    if (!webhook || !event) return;
    const tenant: Tenant = { organizationId: webhook.organizationId, mode: webhook.mode };
    if (result.webhookChange === 'recovered') {
      await this.webhooks.setStatus(tx, tenant, webhook.id, 'failed', 'enabled', null);
    } else if (result.webhookChange === 'gone') {
      await this.webhooks.setStatus(
        tx,
        tenant,
        webhook.id,
        null,
        'disabled',
        'the receiver answered 410 Gone',
      );
    } else if (result.webhookChange === 'exhausted') {
      await this.exhausted(tx, tenant, result, webhook, event);
    }
  }

  /** After the last attempt: the webhook is marked failed and `webhook.failed` announces it. */
  private async exhausted(
    tx: Transaction,
    tenant: Tenant,
    result: DeliveryResult,
    webhook: ClaimedWebhook,
    event: EventEntity,
  ): Promise<void> {
    await this.webhooks.setStatus(
      tx,
      tenant,
      webhook.id,
      'enabled',
      'failed',
      `every attempt to deliver event ${toPublicId('event', event.id)} failed`,
    );
    // A failure notice that cannot be delivered announces nothing new; stopping here prevents loops.
    if (event.type === 'webhook.failed') return;
    const sequence = await this.webhooks.nextEventSequence(tx, tenant, webhook.id);
    await this.eventLog.append(
      tx,
      tenant,
      'webhook.failed',
      {
        webhook_id: toPublicId('webhook', webhook.id),
        url: webhook.url,
        delivery_id: toPublicId('webhookDelivery', result.delivery.id),
        event_id: toPublicId('event', event.id),
        event_type: event.type,
        attempts: result.attempts,
        last_status_code: result.statusCode,
        last_error: result.error,
        failed_at: new Date().toISOString(),
        sequence,
      },
      null,
    );
  }
}

function outcomeOf(result: DeliveryResult): DeliveryOutcome {
  const { attempt } = result;
  return {
    deliveryId: result.delivery.id,
    attempts: result.attempts,
    state: result.state,
    statusCode: result.statusCode,
    error: result.error,
    delayMs: result.delayMs,
    attempt:
      attempt === null
        ? null
        : {
            startedAt: attempt.startedAt,
            durationMs: attempt.outcome.durationMs,
            statusCode: attempt.outcome.statusCode,
            responseBody: attempt.outcome.responseBody,
            error: attempt.outcome.error,
          },
  };
}

/** Orders ids as PostgreSQL orders uuids (their lowercase text sorts the same way). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
