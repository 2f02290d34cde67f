import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, toPublicId, type Tenant } from '#common';
import { Sql, type KeysetPage, type PageRequest, type Transaction } from '#database';
import { EVENT_TYPES, EventsRepository, type EventEntity } from '#events';
import type { WebhookAttemptEntity } from './entities/webhook-attempt.entity.js';
import type { DeliveryState, WebhookDeliveryEntity } from './entities/webhook-delivery.entity.js';
import type { WebhookEntity } from './entities/webhook.entity.js';
import { MAX_ATTEMPTS } from './retry-schedule.js';
import { sampleEventData } from './sample-events.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { ALL_EVENTS, WebhooksService } from './webhooks.service.js';

/** At most this many events are replayed by one request; narrow the range for more. */
export const MAX_REPLAY_EVENTS = 10_000;

export interface DeliveryWithAttempts {
  delivery: WebhookDeliveryEntity;
  event: Pick<EventEntity, 'id' | 'type'>;
  attempts: WebhookAttemptEntity[];
}

export interface ReplayRequest {
  webhookId: string;
  from?: Date | undefined;
  to?: Date | undefined;
  sinceEventId?: string | undefined;
  includeDelivered: boolean;
  dryRun: boolean;
}

export interface ReplayResult {
  replayId: string | null;
  matched: number;
  scheduled: number;
  skippedAcknowledged: number;
  skippedPending: number;
}
/**
 * A webhook's deliveries, for the API: their history with attempts, manual
 * retries, test deliveries and replays. The worker's WebhookDeliverer sends them.
 */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    private readonly sql: Sql,
    private readonly webhooks: WebhooksService,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly events: EventsRepository,
  ) {}

  /**
   * Sends one sample event of `eventType` (data overridden by `testData`) to
   * this webhook only, once, whether or not it is active or subscribed. The
   * event is kept with its delivery but stays out of the event list.
   */
  async sendTest(
    tenant: Tenant,
    publicId: string,
    eventType: string,
    testData: Record<string, unknown>,
  ): Promise<DeliveryWithAttempts> {
    const webhook = await this.webhooks.get(tenant, publicId);
    if (!(EVENT_TYPES as readonly string[]).includes(eventType)) {
      throw AppError.invalid('event_type', `must be one of ${EVENT_TYPES.join(', ')}`);
    }
    return this.sql.transaction(async (tx) => {
      const eventId = newUuid();
      await this.events.insertTest(
        tx,
        tenant,
        {
          id: eventId,
          type: eventType,
          data: { ...sampleEventData(eventType), ...testData },
        },
        webhook.id,
      );
      const [id] = await this.schedule(tx, tenant, webhook, [eventId], 'test', 1, null);
      const delivery = await this.deliveries.find(tenant, webhook.id, id!, tx);
      return { delivery: delivery!, event: { id: eventId, type: eventType }, attempts: [] };
    });
  }

  async listDeliveries(
    tenant: Tenant,
    webhookPublicId: string,
    query: { limit: number; offset: number; state?: DeliveryState | undefined },
  ): Promise<{ records: DeliveryWithAttempts[]; total: number }> {
    const webhook = await this.webhooks.get(tenant, webhookPublicId);
    const { records, total } = await this.deliveries.list(tenant, webhook.id, query);
    return { records: await this.withDetails(tenant, records), total };
  }

  async pageDeliveries(
    tenant: Tenant,
    webhookPublicId: string,
    query: PageRequest & { state?: DeliveryState | undefined },
  ): Promise<KeysetPage<DeliveryWithAttempts & { id: string }>> {
    const webhook = await this.webhooks.get(tenant, webhookPublicId);
    const page = await this.deliveries.page(tenant, webhook.id, query.state, query);
    const rows = await this.withDetails(tenant, page.rows);
    return { ...page, rows: rows.map((row) => ({ ...row, id: row.delivery.id })) };
  }

  async getDelivery(
    tenant: Tenant,
    webhookPublicId: string,
    deliveryPublicId: string,
  ): Promise<DeliveryWithAttempts> {
    const delivery = await this.findDelivery(tenant, webhookPublicId, deliveryPublicId);
    return (await this.withDetails(tenant, [delivery]))[0]!;
  }

  /** One more attempt of a finished delivery, now; it does not restart the schedule. */
  async retryDelivery(
    tenant: Tenant,
    webhookPublicId: string,
    deliveryPublicId: string,
  ): Promise<DeliveryWithAttempts> {
    const delivery = await this.findDelivery(tenant, webhookPublicId, deliveryPublicId);
    await this.sql.transaction(async (tx) => {
      if (!(await this.deliveries.reopen(tx, tenant, delivery.id))) {
        throw new AppError(
          'CONFLICT',
          'This delivery is still pending; its next attempt is scheduled',
          {
            field: 'delivery_id',
            issue: 'already pending',
          },
        );
      }
      // The delivery, then its event: the deliveries' lock order (DeliveryOutcomes).
      if (delivery.origin === 'event') {
        await this.events.adjustPendingWebhooks(tx, tenant, [delivery.eventId], 1);
      }
      await this.deliveries.notifyDeliverers(tx);
    });
    return this.getDelivery(tenant, webhookPublicId, deliveryPublicId);
  }

  /**
   * Sends the webhook the events of a time range (or those after an event) in
   * order. Without `includeDelivered`, events it already acknowledged (2xx)
   * or that are already on their way to it are skipped, so repeating a
   * replay sends nothing twice.
   */
  async replay(tenant: Tenant, request: ReplayRequest): Promise<ReplayResult> {
    const webhook = await this.webhooks.get(tenant, request.webhookId);
    let after: EventEntity | null = null;
    if (request.sinceEventId !== undefined) {
      const id = parsePublicId('event', request.sinceEventId);
      after = id === null ? null : await this.events.find(tenant, id);
      if (!after) throw AppError.notFound('event', request.sinceEventId);
    }
    const eventIds = await this.events.idsForReplay(
      tenant,
      {
        types: webhook.events.includes(ALL_EVENTS) ? 'all' : webhook.events,
        exceptFailuresOf: toPublicId('webhook', webhook.id),
        from: request.from ?? null,
        to: request.to ?? null,
        afterId: after?.id ?? null,
      },
      MAX_REPLAY_EVENTS + 1,
    );
    if (eventIds.length > MAX_REPLAY_EVENTS) {
      throw AppError.invalid(
        'from',
        `the range holds more than ${MAX_REPLAY_EVENTS} events; replay it in smaller ranges`,
      );
    }
    const delivered = await this.deliveries.deliveredEvents(tenant, webhook.id, eventIds);
    const candidates = eventIds.map((id) => ({
      id,
      acknowledged: delivered.get(id)?.acknowledged ?? false,
      pending: delivered.get(id)?.pending ?? false,
    }));
    const skippedAcknowledged = request.includeDelivered
      ? 0
      : candidates.filter((event) => event.acknowledged).length;
    const skippedPending = candidates.filter(
      (event) => event.pending && (request.includeDelivered || !event.acknowledged),
    ).length;
    const chosen = candidates.filter(
      (event) => !event.pending && (request.includeDelivered || !event.acknowledged),
    );
    const result = {
      replayId: null,
      matched: candidates.length,
      scheduled: chosen.length,
      skippedAcknowledged,
      skippedPending,
    };
    if (request.dryRun || chosen.length === 0) return result;
    const replayId = newUuid();
    await this.sql.transaction((tx) =>
      this.schedule(
        tx,
        tenant,
        webhook,
        chosen.map((event) => event.id),
        'replay',
        MAX_ATTEMPTS,
        replayId,
      ),
    );
    return { ...result, replayId };
  }

  /** Event ids in order become deliveries due now, in that order; returns their ids. */
  private async schedule(
    tx: Transaction,
    tenant: Tenant,
    webhook: WebhookEntity,
    eventIds: string[],
    origin: 'test' | 'replay',
    maxAttempts: number,
    replayId: string | null,
  ): Promise<string[]> {
    const ids = eventIds.map(() => newUuid());
    await this.deliveries.schedule(
      tx,
      tenant,
      webhook.id,
      { ids, eventIds },
      origin,
      maxAttempts,
      replayId,
    );
    await this.deliveries.notifyDeliverers(tx);
    return ids;
  }

  private async findDelivery(
    tenant: Tenant,
    webhookPublicId: string,
    deliveryPublicId: string,
  ): Promise<WebhookDeliveryEntity> {
    const webhook = await this.webhooks.get(tenant, webhookPublicId);
    const id = parsePublicId('webhookDelivery', deliveryPublicId);
    const delivery = id === null ? null : await this.deliveries.find(tenant, webhook.id, id);
    if (!delivery) throw AppError.notFound('delivery', deliveryPublicId);
    return delivery;
  }

  private async withDetails(
    tenant: Tenant,
    deliveries: WebhookDeliveryEntity[],
  ): Promise<DeliveryWithAttempts[]> {
    if (deliveries.length === 0) return [];
    const [attempts, typeOf] = await Promise.all([
      this.deliveries.attemptsOf(deliveries.map((delivery) => delivery.id)),
      this.events.typesOf(
        tenant,
        deliveries.map((delivery) => delivery.eventId),
      ),
    ]);
    return deliveries.map((delivery) => ({
      delivery,
      event: { id: delivery.eventId, type: typeOf.get(delivery.eventId) ?? 'unknown' },
      attempts: attempts.filter((attempt) => attempt.deliveryId === delivery.id),
    }));
  }
}
