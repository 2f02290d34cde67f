import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { newUuid, toPublicId } from '#common';
import type { EventEntity, EventLog } from '#events';
import {
  claimedDeliveries,
  DELIVERY_COLUMNS,
  DELIVERY_JOINS,
  LEASE_SECONDS,
  LEASED_RETURNING,
  type ClaimedDelivery,
  type ClaimedWebhook,
  type DeliveryRow,
} from './delivery-claims.js';
import type { DeliveryState } from './entities/webhook-delivery.entity.js';
import type { WebhookStatus } from './entities/webhook.entity.js';
import type { SendOutcome } from './webhook-sender.js';

/** Most outcomes one statement writes. */
const MAX_BATCH = 500;
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
 * Writes the outcomes of delivery attempts together, whatever ended while the
 * previous batch was being written going in the next: one statement for the
 * attempts, the deliveries and the events' pending counts (atomic on its own),
 * in a transaction with what an outcome does to its webhook when it does
 * anything (rare). A busy worker makes one round trip per batch instead of
 * five per delivery; an idle one writes each outcome at once. Until its
 * outcome is written a delivery stays leased, so a crash before that sends it
 * again (at least once).
 *
 * The same statement hands each freed slot over: for every outcome it leases
 * the next due delivery of the same endpoint (none of a replay's, which go one
 * at a time through the claim). An endpoint's leases are never more than
 * before, so its cap holds across workers without the claim's lock, and a busy
 * endpoint's next delivery starts one round trip after the last one ended
 * instead of two (the outcome, then a claim).
 */
export class AttemptRecords {
  private readonly logger = new Logger(AttemptRecords.name);
  private queue: DeliveryResult[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventLog,
    /**
     * After each batch, written or not (a failed one's leases expire and they are sent again),
     * with the deliveries leased in their place, to be sent.
     */
    private readonly written: (results: DeliveryResult[], handedOver: ClaimedDelivery[]) => void,
    /** Whether freed slots are handed over now (not while the worker stops). */
    private readonly handingOver: () => boolean = () => true,
  ) {}

  record(result: DeliveryResult): void {
    this.queue.push(result);
    this.writing ??= this.writeAll();
  }

  /** Resolves once everything recorded so far is written (or has failed). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(): Promise<void> {
    try {
      // Lets the answers read in the same turn of the event loop join the first batch.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        const handedOver = await this.writeBatch(batch).catch(async (error: unknown) => {
          if (batch.length === 1) return this.failed(batch, error);
          // One outcome the batch could not take (or a deadlock with another worker) must not
          // hold the others back: each is written on its own.
          this.logger.warn({ err: error }, 'writing delivery outcomes failed; one by one');
          const each: ClaimedDelivery[] = [];
          for (const result of batch) {
            each.push(
              ...(await this.writeBatch([result]).catch((alone: unknown) =>
                this.failed([result], alone),
              )),
            );
          }
          return each;
        });
        this.written(batch, handedOver);
      }
    } finally {
      this.writing = null;
    }
  }

  private failed(results: DeliveryResult[], error: unknown): ClaimedDelivery[] {
    this.logger.error(
      { err: error, deliveries: results.map((r) => toPublicId('webhookDelivery', r.delivery.id)) },
      'recording a webhook delivery failed; its lease will expire and it will be sent again',
    );
    return [];
  }

  private async writeBatch(results: DeliveryResult[]): Promise<ClaimedDelivery[]> {
    const handOver = this.handingOver();
    if (results.every((result) => result.webhookChange === null)) {
      return this.write(this.dataSource.manager, results, handOver);
    }
    return this.dataSource.transaction((manager) => this.write(manager, results, handOver));
  }

  /**
   * The statements of `write`, for a caller's transaction; with `handOver`, the deliveries
   * leased in the freed slots' place.
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
   * then the events, by id; then the webhooks, by id (WebhooksService.delete and
   * the claim follow the same order). The handover's deliveries are taken after
   * the outcomes' with SKIP LOCKED, so it never waits while holding them.
   * Test: webhook-outcome-locks.e2e-spec.ts.
   */
  async write(
    manager: EntityManager,
    results: DeliveryResult[],
    handOver = false,
  ): Promise<ClaimedDelivery[]> {
    if (results.length === 0) return [];
    const attempts = results.filter((result) => result.attempt !== null);
    const now = Date.now();
    /** Deliveries whose slot is handed over once their outcome is written. */
    const slots = handOver
      ? results
          .filter((result) => now - result.delivery.leasedAt.getTime() < HANDOVER_MAX_LEASE_AGE_MS)
          .map((result) => result.delivery.id)
      : [];
    // Data-modifying CTEs run whatever the final SELECT reads; an event's `pending_webhooks`
    // counts its fan-out deliveries not yet settled. Every CTE sees the snapshot from before the
    // statement, so the handover skips the deliveries it writes by id, not by their new lease.
    // The order of the locks (see above) is made by what reads what: `outcomes` updates only
    // rows `delivery_locks` locked in id order (MATERIALIZED: a locking CTE is never inlined, but
    // the order must not rest on that); the events are locked in id order once every outcome
    // is written (the aggregate reads all of them first); the slots are counted from the
    // outcomes, so the handover starts after them too.
    const handedOver: DeliveryRow[] = await manager.query(
      `WITH delivery_locks AS MATERIALIZED (
         SELECT id FROM webhook_deliveries WHERE id = ANY($9::uuid[])
          ORDER BY id FOR NO KEY UPDATE
       ), attempts AS (
         INSERT INTO webhook_attempts
           (id, delivery_id, attempt_number, started_at, duration_ms, status_code, response_body, error)
         SELECT a.* FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::int[],
                                $6::int[], $7::text[], $8::text[])
                  AS a(id, delivery_id, attempt_number, started_at, duration_ms, status_code,
                       response_body, error)
          -- Of deliveries that still exist (a webhook deleted meanwhile took its own).
          WHERE a.delivery_id IN (SELECT id FROM delivery_locks)
       ), outcomes AS (
         UPDATE webhook_deliveries d
            SET attempts = u.attempts, state = u.state, last_status_code = u.status_code,
                last_error = u.error, lease_until = NULL,
                next_attempt_at = CASE WHEN u.state = 'pending'
                                       THEN now() + u.delay_ms * interval '1 millisecond' END,
                completed_at = CASE WHEN u.state = 'pending' THEN NULL ELSE now() END
           FROM unnest($9::uuid[], $10::int[], $11::text[], $12::int[], $13::text[], $14::int[])
             AS u(id, attempts, state, status_code, error, delay_ms)
           JOIN delivery_locks l ON l.id = u.id
          WHERE d.id = u.id
         RETURNING d.id, d.webhook_id, d.event_id, d.origin, d.state
       ), settling AS (
         SELECT event_id, count(*)::int AS settled FROM outcomes
          WHERE state <> 'pending' AND origin = 'event' GROUP BY event_id
       ), event_locks AS MATERIALIZED (
         SELECT e.id FROM events e WHERE e.id IN (SELECT event_id FROM settling)
          ORDER BY e.id FOR NO KEY UPDATE OF e
       ), settled AS (
         UPDATE events e SET pending_webhooks = greatest(e.pending_webhooks - s.settled, 0)
           FROM settling s JOIN event_locks l ON l.id = s.event_id
          WHERE e.id = s.event_id
       ), slots AS (
         SELECT webhook_id, count(*)::int AS free FROM outcomes WHERE id = ANY($15::uuid[])
          GROUP BY webhook_id
       ), handed AS (
         UPDATE webhook_deliveries d
            SET lease_until = now() + interval '${LEASE_SECONDS} seconds'
           FROM (SELECT next.id FROM slots CROSS JOIN LATERAL (
                   SELECT x.id FROM webhook_deliveries x
                    WHERE x.webhook_id = slots.webhook_id AND x.state = 'pending'
                      AND x.next_attempt_at <= now()
                      AND (x.lease_until IS NULL OR x.lease_until < now())
                      AND x.replay_id IS NULL AND x.id <> ALL($9::uuid[])
                    ORDER BY x.next_attempt_at, x.id
                    LIMIT slots.free
                    FOR UPDATE SKIP LOCKED
                 ) next) picked
          WHERE d.id = picked.id
         RETURNING ${LEASED_RETURNING}
       )
       SELECT ${DELIVERY_COLUMNS}
         FROM handed c
         ${DELIVERY_JOINS}
        ORDER BY c.next_attempt_at, c.id`,
      [
        attempts.map(() => newUuid()),
        attempts.map((result) => result.delivery.id),
        attempts.map((result) => result.attempts),
        attempts.map((result) => result.attempt!.startedAt.toISOString()),
        attempts.map((result) => result.attempt!.outcome.durationMs),
        attempts.map((result) => result.attempt!.outcome.statusCode),
        attempts.map((result) => result.attempt!.outcome.responseBody),
        attempts.map((result) => result.attempt!.outcome.error),
        results.map((result) => result.delivery.id),
        results.map((result) => result.attempts),
        results.map((result) => result.state),
        results.map((result) => result.statusCode),
        results.map((result) => result.error),
        results.map((result) => result.delayMs),
        slots,
      ],
    );
    // The webhooks last, by id (a stable sort: one webhook's changes keep their order).
    const byWebhook = [...results].sort((a, b) =>
      compare(a.delivery.webhookId, b.delivery.webhookId),
    );
    for (const result of byWebhook) {
      const { webhook, event } = result.delivery;
      if (!webhook || !event) continue;
      if (result.webhookChange === 'recovered') {
        await setStatus(manager, webhook, 'failed', 'enabled', null);
      } else if (result.webhookChange === 'gone') {
        await setStatus(manager, webhook, null, 'disabled', 'the receiver answered 410 Gone');
      } else if (result.webhookChange === 'exhausted') {
        await this.exhausted(manager, result, webhook, event);
      }
    }
    return claimedDeliveries(handedOver);
  }

  /** After the last attempt: the webhook is marked failed and `webhook.failed` announces it. */
  private async exhausted(
    manager: EntityManager,
    result: DeliveryResult,
    webhook: ClaimedWebhook,
    event: EventEntity,
  ): Promise<void> {
    await setStatus(
      manager,
      webhook,
      'enabled',
      'failed',
      `every attempt to deliver event ${toPublicId('event', event.id)} failed`,
    );
    // A failure notice that cannot be delivered announces nothing new; stopping here prevents loops.
    if (event.type === 'webhook.failed') return;
    const [[{ event_sequence: sequence }]] = (await manager.query(
      `UPDATE webhooks SET event_sequence = event_sequence + 1 WHERE id = $1 RETURNING event_sequence`,
      [webhook.id],
    )) as [[{ event_sequence: number }], number];
    await this.events.append(
      manager,
      { organizationId: webhook.organizationId, mode: webhook.mode },
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

/** Moves the webhook to `status`, only from `from` when given (a disabled webhook stays disabled). */
async function setStatus(
  manager: EntityManager,
  webhook: ClaimedWebhook,
  from: WebhookStatus | null,
  status: WebhookStatus,
  reason: string | null,
): Promise<void> {
  await manager.query(
    `UPDATE webhooks SET status = $3, status_reason = $4, active = active AND $3 <> 'disabled',
            updated_at = now()
      WHERE id = $1 AND ($2::text IS NULL OR status = $2)`,
    [webhook.id, from, status, reason],
  );
}

/** Orders ids as PostgreSQL orders uuids (their lowercase text sorts the same way). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
