import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, type EntityManager } from 'typeorm';
import { newKey, openSealedSecret, toPublicId } from '#common';
import { AppSettings } from '#config';
import { WakeUpPump } from '#database';
import { EventEntity } from '#events';
import { WebhookDeliveryEntity, type DeliveryState } from './entities/webhook-delivery.entity.js';
import { WebhookEntity, type WebhookStatus } from './entities/webhook.entity.js';
import { EventLog } from '#events';
import { DELIVERIES_CHANNEL } from './delivery-notifications.js';
import { deliveryBody } from './envelopes.js';
import { nextDelayMs, parseRetryAfter } from './retry-schedule.js';
import { signatureHeaders } from './signatures.js';
import { WebhookSender, type SendOutcome } from './webhook-sender.js';

/** How long a worker holds a delivery it is sending; a crashed worker's deliveries are picked up after it. */
export const LEASE_SECONDS = 15;
const IDLE_POLL_MS = 1000;
const CLAIM_WINDOW = 1000;

/**
 * Claims due deliveries from PostgreSQL and sends them. Claims are serialised
 * by an advisory lock so the per-endpoint cap (WEBHOOK_ENDPOINT_CONCURRENCY)
 * holds across every worker; deliveries of one replay go one at a time, in
 * event order. Each attempt's outcome, the next attempt's time and any
 * `webhook.failed` event commit in one transaction.
 */
const CLAIM = `
WITH due AS (
  SELECT id, webhook_id, replay_id, next_attempt_at FROM webhook_deliveries
   WHERE state = 'pending' AND next_attempt_at <= now()
     AND (lease_until IS NULL OR lease_until < now())
   ORDER BY next_attempt_at, id
   LIMIT ${CLAIM_WINDOW}
), ranked AS (
  SELECT due.*,
         row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at, id) AS webhook_rank,
         row_number() OVER (PARTITION BY replay_id ORDER BY next_attempt_at, id) AS replay_rank
    FROM due
), busy AS (
  SELECT webhook_id, count(*) AS in_flight, array_agg(replay_id) AS replays
    FROM webhook_deliveries
   WHERE state = 'pending' AND lease_until >= now()
   GROUP BY webhook_id
)
UPDATE webhook_deliveries d
   SET lease_until = now() + interval '${LEASE_SECONDS} seconds'
  FROM (
    SELECT r.id FROM ranked r LEFT JOIN busy b USING (webhook_id)
     WHERE r.webhook_rank + coalesce(b.in_flight, 0) <= $1
       AND (r.replay_id IS NULL
            OR (r.replay_rank = 1 AND NOT coalesce(r.replay_id = ANY(b.replays), false)))
     ORDER BY r.next_attempt_at, r.id
     LIMIT $2
  ) picked
 WHERE d.id = picked.id
RETURNING d.id`;

interface ClaimedDelivery {
  delivery: WebhookDeliveryEntity;
  /** Null when deleted since the delivery was created (and the event, by retention). */
  webhook: WebhookEntity | null;
  event: EventEntity | null;
}

@Injectable()
export class WebhookDeliverer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliverer.name);
  private readonly inFlight = new Set<Promise<void>>();
  private readonly pump: WakeUpPump;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    private readonly events: EventLog,
    private readonly settings: AppSettings,
  ) {
    // Woken when deliveries become due (NOTIFY at commit), when one finishes, and at the next due time.
    this.pump = new WakeUpPump({
      name: WebhookDeliverer.name,
      databaseUrl: settings.databaseUrl,
      channel: DELIVERIES_CHANNEL,
      pass: () => this.claimDue(),
      retryMs: IDLE_POLL_MS,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.pump.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pump.stop();
    // Attempts in flight finish (each is bounded by the 5 s timeout) so none is sent twice.
    await Promise.allSettled([...this.inFlight]);
  }

  /** Claims and starts what is due now, or right after the claim in progress. */
  wake(): void {
    this.pump.wake();
  }

  /** Claims and starts due deliveries; returns how long to sleep before looking again. */
  private async claimDue(): Promise<number> {
    const capacity = this.settings.webhooks.workerConcurrency - this.inFlight.size;
    if (capacity > 0) {
      const claimed = await this.claim(capacity);
      for (const delivery of claimed) this.start(delivery);
      // Full: a finishing delivery wakes the pump, no need to look for the next due time.
      if (claimed.length === capacity) return IDLE_POLL_MS;
    }
    const [{ next_due } = { next_due: null }] = await this.dataSource.query<
      { next_due: Date | null }[]
    >(`SELECT min(next_attempt_at) AS next_due FROM webhook_deliveries WHERE state = 'pending'`);
    if (next_due === null) return IDLE_POLL_MS;
    return Math.min(IDLE_POLL_MS, Math.max(10, next_due.getTime() - Date.now()));
  }

  /** Leases up to `limit` due deliveries and loads what sending them needs, in three queries. */
  private async claim(limit: number): Promise<ClaimedDelivery[]> {
    const ids = await this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('webhook-delivery-claim'))`);
      const [rows] = (await manager.query(CLAIM, [
        this.settings.webhooks.endpointConcurrency,
        limit,
      ])) as [{ id: string }[], number];
      return rows.map((row) => row.id);
    });
    if (ids.length === 0) return [];
    const deliveries = await this.dataSource
      .getRepository(WebhookDeliveryEntity)
      .findBy({ id: In(ids) });
    const [webhooks, events] = await Promise.all([
      this.dataSource
        .getRepository(WebhookEntity)
        .findBy({ id: In([...new Set(deliveries.map((d) => d.webhookId))]) }),
      this.dataSource
        .getRepository(EventEntity)
        .findBy({ id: In([...new Set(deliveries.map((d) => d.eventId))]) }),
    ]);
    const webhookById = new Map(webhooks.map((webhook) => [webhook.id, webhook]));
    const eventById = new Map(events.map((event) => [event.id, event]));
    return deliveries.map((delivery) => ({
      delivery,
      webhook: webhookById.get(delivery.webhookId) ?? null,
      event: eventById.get(delivery.eventId) ?? null,
    }));
  }

  private start(claimed: ClaimedDelivery): void {
    const { delivery } = claimed;
    const task = this.deliver(claimed)
      .catch((error: unknown) =>
        this.logger.error(
          { err: error, delivery: toPublicId('webhookDelivery', delivery.id) },
          'webhook delivery failed unexpectedly; its lease will expire and it will be retried',
        ),
      )
      .finally(() => {
        this.inFlight.delete(task);
        this.wake();
      });
    this.inFlight.add(task);
  }

  /** Sends one attempt of a claimed delivery and records what happened. */
  private async deliver({ delivery, webhook, event }: ClaimedDelivery): Promise<void> {
    if (!webhook || !event) {
      // Deleted meanwhile (the webhook, or the event by retention): nothing left to send.
      await this.finish(delivery, 'cancelled', null, 'the webhook or the event no longer exists');
      return;
    }
    if (!webhook.active && delivery.origin !== 'test') {
      await this.finish(delivery, 'cancelled', null, 'the webhook is disabled');
      return;
    }
    const attemptNumber = delivery.attempts + 1;
    const startedAt = new Date();
    const body = deliveryBody(event, webhook.envelopeFormat);
    const eventId = toPublicId('event', event.id);
    const headers = {
      ...signatureHeaders(
        this.secretsOf(webhook, startedAt),
        eventId,
        Math.floor(startedAt.getTime() / 1000),
        body,
      ),
      'x-service-delivery-id': toPublicId('webhookDelivery', delivery.id),
      'x-service-delivery-attempt': String(attemptNumber),
    };
    const outcome = await this.sender.send(webhook.url, headers, body);
    await this.record(delivery, webhook, event, attemptNumber, startedAt, outcome);
  }

  private secretsOf(webhook: WebhookEntity, now: Date): string[] {
    const key = this.settings.signingKeySecret;
    const secrets = [openSealedSecret(webhook.secretSealed, key)];
    if (
      webhook.previousSecretSealed !== null &&
      webhook.previousSecretExpiresAt !== null &&
      webhook.previousSecretExpiresAt > now
    ) {
      secrets.push(openSealedSecret(webhook.previousSecretSealed, key));
    }
    return secrets;
  }

  private async record(
    delivery: WebhookDeliveryEntity,
    webhook: WebhookEntity,
    event: EventEntity,
    attemptNumber: number,
    startedAt: Date,
    outcome: SendOutcome,
  ): Promise<void> {
    const status = outcome.statusCode;
    const succeeded = status !== null && status >= 200 && status < 300;
    const gone = status === 410;
    const retryAfter =
      status === 429 || status === 503 ? parseRetryAfter(outcome.retryAfter) : null;
    const delay =
      succeeded || gone
        ? null
        : nextDelayMs(
            attemptNumber,
            delivery.maxAttempts,
            this.settings.webhooks.retryScale,
            retryAfter,
          );
    const error = outcome.error ?? (succeeded ? null : `the receiver answered ${status}`);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO webhook_attempts
           (id, delivery_id, attempt_number, started_at, duration_ms, status_code, response_body, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          newKey('webhookAttempt').uuid,
          delivery.id,
          attemptNumber,
          startedAt,
          outcome.durationMs,
          status,
          outcome.responseBody,
          outcome.error,
        ],
      );
      const state: DeliveryState = succeeded ? 'succeeded' : delay === null ? 'failed' : 'pending';
      await manager.query(
        `UPDATE webhook_deliveries
            SET attempts = $2, state = $3, last_status_code = $4, last_error = $5, lease_until = NULL,
                next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + $6 * interval '1 millisecond' END,
                completed_at = CASE WHEN $3 = 'pending' THEN NULL ELSE now() END
          WHERE id = $1`,
        [delivery.id, attemptNumber, state, status, error, delay ?? 0],
      );
      if (state !== 'pending') await this.settle(manager, delivery);
      if (succeeded && webhook.status === 'failed') {
        await this.setStatus(manager, webhook, 'failed', 'enabled', null);
      } else if (gone) {
        await this.setStatus(manager, webhook, null, 'disabled', 'the receiver answered 410 Gone');
      } else if (state === 'failed' && delivery.origin === 'event') {
        await this.exhausted(manager, delivery, webhook, event, attemptNumber, status, error);
      }
    });
  }

  /** After the last attempt: the webhook is marked failed and `webhook.failed` announces it. */
  private async exhausted(
    manager: EntityManager,
    delivery: WebhookDeliveryEntity,
    webhook: WebhookEntity,
    event: EventEntity,
    attempts: number,
    status: number | null,
    error: string | null,
  ): Promise<void> {
    await this.setStatus(
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
        delivery_id: toPublicId('webhookDelivery', delivery.id),
        event_id: toPublicId('event', event.id),
        event_type: event.type,
        attempts,
        last_status_code: status,
        last_error: error,
        failed_at: new Date().toISOString(),
        sequence,
      },
      null,
    );
  }

  /** Moves the webhook to `status`, only from `from` when given (a disabled webhook stays disabled). */
  private async setStatus(
    manager: EntityManager,
    webhook: WebhookEntity,
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

  private async finish(
    delivery: WebhookDeliveryEntity,
    state: DeliveryState,
    status: number | null,
    error: string,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE webhook_deliveries SET state = $2, last_status_code = $3, last_error = $4,
                lease_until = NULL, next_attempt_at = NULL, completed_at = now() WHERE id = $1`,
        [delivery.id, state, status, error],
      );
      await this.settle(manager, delivery);
    });
  }

  /** An event's `pending_webhooks` counts its fan-out deliveries not yet settled. */
  private async settle(manager: EntityManager, delivery: WebhookDeliveryEntity): Promise<void> {
    if (delivery.origin !== 'event') return;
    await manager.query(
      `UPDATE events SET pending_webhooks = greatest(pending_webhooks - 1, 0) WHERE id = $1`,
      [delivery.eventId],
    );
  }
}
