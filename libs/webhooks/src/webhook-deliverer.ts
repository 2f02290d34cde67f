import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { openSealedSecret, toPublicId } from '#common';
import { AppSettings } from '#config';
import { WakeUpPump } from '#database';
import { EventLog, type EventEntity } from '#events';
import { AttemptRecords, type DeliveryResult } from './attempt-records.js';
import {
  claimDeliveries,
  type Claim,
  type ClaimedDelivery,
  type ClaimedWebhook,
} from './delivery-claims.js';
import { DELIVERIES_CHANNEL } from './delivery-notifications.js';
import type { EnvelopeFormat } from './entities/webhook.entity.js';
import { deliveryBody } from './envelopes.js';
import { nextDelayMs, parseRetryAfter } from './retry-schedule.js';
import { signatureHeaders } from './signatures.js';
import { WebhookSender, type SendOutcome } from './webhook-sender.js';

export { LEASE_SECONDS } from './delivery-claims.js';

const IDLE_POLL_MS = 1000;
/** How often to look again while due deliveries wait only for another worker's to end. */
const HELD_BACK_POLL_MS = 50;
/** Most outcomes one pass writes. */
const MAX_BATCH = 500;
/** Sealed secrets opened, kept so a delivery does not decrypt its endpoint's secret again. */
const OPENED_SECRETS_KEPT = 1000;

/**
 * Claims due deliveries from PostgreSQL and sends them. Claims are serialised
 * by an advisory lock so the per-endpoint cap (WEBHOOK_ENDPOINT_CONCURRENCY)
 * holds across every worker; deliveries of one replay go one at a time, in
 * event order. Each attempt's outcome, the next attempt's time and any
 * `webhook.failed` event commit in one transaction, together with the
 * outcomes of the other attempts that ended meanwhile and the claim of the
 * deliveries that take their place.
 */
@Injectable()
export class WebhookDeliverer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliverer.name);
  /** Attempts being sent. */
  private readonly sending = new Set<Promise<void>>();
  /** Outcomes waiting for the next pass to write them. */
  private finished: DeliveryResult[] = [];
  /** Deliveries this worker holds a lease on: being sent, or their outcome not yet written. */
  private held = 0;
  private readonly pump: WakeUpPump;
  private readonly records: AttemptRecords;
  private readonly openedSecrets = new Map<string, string>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    events: EventLog,
    private readonly settings: AppSettings,
  ) {
    // Woken when deliveries become due (NOTIFY at commit), when attempts end (their outcomes are
    // written and what they held claimed again in one pass), and at the next due time.
    this.pump = new WakeUpPump({
      name: WebhookDeliverer.name,
      databaseUrl: settings.databaseUrl,
      channel: DELIVERIES_CHANNEL,
      pass: () => this.pass(),
      retryMs: IDLE_POLL_MS,
    });
    this.records = new AttemptRecords(events);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.pump.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pump.stop();
    // Attempts in flight finish (each is bounded by the 5 s timeout) and are written, so none is
    // sent twice.
    await Promise.allSettled([...this.sending]);
    while (this.finished.length > 0) await this.writeAlone(this.finished.splice(0, MAX_BATCH));
  }

  /** Claims and starts what is due now, or right after the pass in progress. */
  wake(): void {
    this.pump.wake();
  }

  /**
   * One pass, one transaction: writes the outcomes of the attempts that ended since the last
   * pass, then claims (under the claim lock) as many due deliveries as there is room for, and
   * starts them. Returns how long to sleep before looking again.
   */
  private async pass(): Promise<number> {
    const results = this.finished.splice(0, MAX_BATCH);
    const capacity = this.settings.webhooks.workerConcurrency - this.held + results.length;
    let claim: Claim | null;
    try {
      claim = await this.dataSource.transaction(async (manager) => {
        await this.records.write(manager, results, capacity > 0);
        if (capacity <= 0) return null;
        return claimDeliveries(manager, this.settings.webhooks.endpointConcurrency, capacity);
      });
    } catch (error) {
      if (results.length === 0) throw error;
      // An outcome the batch could not take (or a deadlock with another worker) must not hold
      // the others back: each is written on its own, and the claim waits for the next pass.
      this.logger.warn({ err: error }, 'writing delivery outcomes failed; writing them one by one');
      for (const result of results) await this.writeAlone([result]);
      return 0;
    }
    this.held -= results.length;
    if (this.finished.length > 0) this.wake(); // more than one batch ended meanwhile
    if (claim === null) return IDLE_POLL_MS; // full: ending attempts wake the pump
    this.held += claim.deliveries.length;
    this.startAll(claim.deliveries);
    if (claim.heldBack) {
      // Due deliveries wait for room: ours wake the pump as they end; another worker's are polled.
      return this.held > 0 ? IDLE_POLL_MS : HELD_BACK_POLL_MS;
    }
    if (claim.nextDue === null) return IDLE_POLL_MS;
    return Math.min(IDLE_POLL_MS, Math.max(10, claim.nextDue.getTime() - Date.now()));
  }

  /** Writes outcomes in a transaction of their own; one that fails is logged, its lease expires. */
  private async writeAlone(results: DeliveryResult[]): Promise<void> {
    try {
      await this.dataSource.transaction((manager) => this.records.write(manager, results));
    } catch (error) {
      this.logger.error(
        {
          err: error,
          deliveries: results.map((r) => toPublicId('webhookDelivery', r.delivery.id)),
        },
        'recording a webhook delivery failed; its lease will expire and it will be sent again',
      );
    } finally {
      this.held -= results.length;
    }
  }

  private ended(result: DeliveryResult): void {
    this.finished.push(result);
    // Outcomes that end in the same turn of the event loop go in the same pass.
    if (this.finished.length === 1) setImmediate(() => this.wake());
  }

  private startAll(claimed: ClaimedDelivery[]): void {
    // An event's body is the same for each endpoint that takes the same envelope.
    const bodies = new Map<string, string>();
    const bodyOf = (event: EventEntity, format: EnvelopeFormat) => {
      const key = `${format}:${event.id}`;
      let body = bodies.get(key);
      if (body === undefined) {
        body = deliveryBody(event, format);
        bodies.set(key, body);
      }
      return body;
    };
    for (const delivery of claimed) this.start(delivery, bodyOf);
  }

  private start(
    delivery: ClaimedDelivery,
    bodyOf: (event: EventEntity, format: EnvelopeFormat) => string,
  ): void {
    const task = this.deliver(delivery, bodyOf)
      .then(
        (result) => this.ended(result),
        (error: unknown) => {
          this.held -= 1;
          this.logger.error(
            { err: error, delivery: toPublicId('webhookDelivery', delivery.id) },
            'webhook delivery failed unexpectedly; its lease will expire and it will be retried',
          );
        },
      )
      .finally(() => this.sending.delete(task));
    this.sending.add(task);
  }

  /** Sends one attempt of a claimed delivery; what happened, to be recorded. */
  private async deliver(
    delivery: ClaimedDelivery,
    bodyOf: (event: EventEntity, format: EnvelopeFormat) => string,
  ): Promise<DeliveryResult> {
    const { webhook, event } = delivery;
    if (!webhook || !event) {
      // Deleted meanwhile (the webhook, or the event by retention): nothing left to send.
      return cancelled(delivery, 'the webhook or the event no longer exists');
    }
    if (!webhook.active && delivery.origin !== 'test') {
      return cancelled(delivery, 'the webhook is disabled');
    }
    const attemptNumber = delivery.attempts + 1;
    const startedAt = new Date();
    const body = bodyOf(event, webhook.envelopeFormat);
    const headers = {
      ...signatureHeaders(
        this.secretsOf(webhook, startedAt),
        toPublicId('event', event.id),
        Math.floor(startedAt.getTime() / 1000),
        body,
      ),
      'x-service-delivery-id': toPublicId('webhookDelivery', delivery.id),
      'x-service-delivery-attempt': String(attemptNumber),
    };
    const outcome = await this.sender.send(webhook.id, webhook.url, headers, body);
    return this.resultOf(delivery, webhook, attemptNumber, startedAt, outcome);
  }

  private resultOf(
    delivery: ClaimedDelivery,
    webhook: ClaimedWebhook,
    attemptNumber: number,
    startedAt: Date,
    outcome: SendOutcome,
  ): DeliveryResult {
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
    const state = succeeded ? 'succeeded' : delay === null ? 'failed' : 'pending';
    return {
      delivery,
      state,
      attempts: attemptNumber,
      delayMs: delay ?? 0,
      statusCode: status,
      error: outcome.error ?? (succeeded ? null : `the receiver answered ${status}`),
      attempt: { startedAt, outcome },
      webhookChange:
        succeeded && webhook.status === 'failed'
          ? 'recovered'
          : gone
            ? 'gone'
            : state === 'failed' && delivery.origin === 'event'
              ? 'exhausted'
              : null,
    };
  }

  private secretsOf(webhook: ClaimedWebhook, now: Date): string[] {
    const secrets = [this.open(webhook.secretSealed)];
    if (
      webhook.previousSecretSealed !== null &&
      webhook.previousSecretExpiresAt !== null &&
      webhook.previousSecretExpiresAt > now
    ) {
      secrets.push(this.open(webhook.previousSecretSealed));
    }
    return secrets;
  }

  /** The sealed value names the secret (its IV is random), so a rotated secret is opened anew. */
  private open(sealed: string): string {
    let secret = this.openedSecrets.get(sealed);
    if (secret === undefined) {
      secret = openSealedSecret(sealed, this.settings.signingKeySecret);
      if (this.openedSecrets.size >= OPENED_SECRETS_KEPT) this.openedSecrets.clear();
      this.openedSecrets.set(sealed, secret);
    }
    return secret;
  }
}

function cancelled(delivery: ClaimedDelivery, reason: string): DeliveryResult {
  return {
    delivery,
    state: 'cancelled',
    attempts: delivery.attempts,
    delayMs: 0,
    statusCode: null,
    error: reason,
    attempt: null,
    webhookChange: null,
  };
}
