import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { openSealedSecret, toPublicId } from '#common';
import { AppSettings } from '#config';
import { WakeUpPump } from '#database';
import type { EventEntity } from '#events';
import { AttemptRecords } from './attempt-records.js';
import {
  DeliveryClaims,
  type Claim,
  type ClaimedDelivery,
  type ClaimedWebhook,
} from './delivery-claims.js';
import { DeliveryOutcomes, type DeliveryResult } from './delivery-outcomes.js';
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
/** Sealed secrets opened, kept so a delivery does not decrypt its endpoint's secret again. */
const OPENED_SECRETS_KEPT = 1000;

/**
 * Claims due deliveries from PostgreSQL and sends them. Claims are serialised
 * by an advisory lock so the per-endpoint cap (WEBHOOK_ENDPOINT_CONCURRENCY)
 * holds across every worker; deliveries of one replay go one at a time, in
 * event order. Each attempt's outcome, the next attempt's time and any
 * `webhook.failed` event commit together, in one transaction with the
 * outcomes of the other attempts that ended meanwhile, whose first statement
 * also leases the endpoints' next due deliveries in the slots they free
 * (AttemptRecords, DeliveryOutcomes); the claim fills the rest.
 */
@Injectable()
export class WebhookDeliverer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliverer.name);
  /** Attempts being sent. */
  private readonly sending = new Set<Promise<void>>();
  /** Deliveries this worker holds a lease on: being sent, or their outcome not yet written. */
  private held = 0;
  /** A claim pass is running: room made meanwhile may be claimable right after it. */
  private claiming = false;
  /** The last pass left due deliveries unclaimed (no room: ours or an endpoint's cap). */
  private heldBack = false;
  /** Shutting down: slots freed are no longer handed over. */
  private stopping = false;
  private readonly pump: WakeUpPump;
  private readonly records: AttemptRecords;
  private readonly openedSecrets = new Map<string, string>();

  constructor(
    private readonly claims: DeliveryClaims,
    outcomes: DeliveryOutcomes,
    private readonly sender: WebhookSender,
    private readonly settings: AppSettings,
  ) {
    // Woken when deliveries become due (NOTIFY at commit), when written outcomes make room that
    // due deliveries wait for, and at the next due time.
    this.pump = new WakeUpPump({
      name: WebhookDeliverer.name,
      databaseUrl: settings.databaseUrl,
      channel: DELIVERIES_CHANNEL,
      pass: () => this.claimDue(),
      retryMs: IDLE_POLL_MS,
    });
    this.records = new AttemptRecords(
      outcomes,
      (results, handedOver) => this.written(results, handedOver),
      () => !this.stopping,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.pump.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.pump.stop();
    // Attempts in flight finish (each is bounded by the 5 s timeout) and are written, so none is
    // sent twice; so are those handed over by a write already under way.
    do {
      await Promise.allSettled([...this.sending]);
      await this.records.flushed();
    } while (this.sending.size > 0);
  }

  /** Claims and starts what is due now, or right after the pass in progress. */
  wake(): void {
    this.pump.wake();
  }

  /** Claims and starts due deliveries; returns how long to sleep before looking again. */
  private async claimDue(): Promise<number> {
    const capacity = this.settings.webhooks.workerConcurrency - this.held;
    if (capacity <= 0) {
      this.heldBack = true; // written outcomes wake the pump
      return IDLE_POLL_MS;
    }
    this.claiming = true;
    let claim: Claim;
    try {
      claim = await this.claims.claim(this.settings.webhooks.endpointConcurrency, capacity);
    } finally {
      this.claiming = false;
    }
    this.startAll(claim.deliveries);
    this.heldBack = claim.heldBack;
    if (claim.heldBack) {
      // Due deliveries wait for room: ours wake the pump as they are written; another worker's
      // are polled for.
      return this.held > 0 ? IDLE_POLL_MS : HELD_BACK_POLL_MS;
    }
    if (claim.nextDue === null) return IDLE_POLL_MS;
    return Math.min(IDLE_POLL_MS, Math.max(10, claim.nextDue.getTime() - Date.now()));
  }

  private written(results: DeliveryResult[], handedOver: ClaimedDelivery[]): void {
    this.held -= results.length;
    this.startAll(handedOver);
    // Room matters only to deliveries already due, and only room not handed over; a retry
    // scheduled moves the next due time.
    const roomLeft = handedOver.length < results.length;
    if (
      (roomLeft && (this.heldBack || this.claiming)) ||
      results.some((result) => result.state === 'pending')
    ) {
      this.wake();
    }
  }

  private startAll(claimed: ClaimedDelivery[]): void {
    this.held += claimed.length;
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
        (result) => this.records.record(result),
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
