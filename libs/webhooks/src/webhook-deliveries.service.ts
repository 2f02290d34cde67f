import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError, newUuid, parsePublicId, toPublicId, type Tenant } from '#common';
import {
  keysetPage,
  readEntities,
  SqlConditions,
  type KeysetPage,
  type PageRequest,
} from '#database';
import { EventEntity } from '#events';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity.js';
import { WebhookDeliveryEntity, type DeliveryState } from './entities/webhook-delivery.entity.js';
import { type WebhookEntity } from './entities/webhook.entity.js';
import { EVENT_TYPES } from '#events';
import { notifyDeliverers } from './delivery-notifications.js';
import { MAX_ATTEMPTS } from './retry-schedule.js';
import { sampleEventData } from './sample-events.js';
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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly webhooks: WebhooksService,
  ) {}

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
    return this.dataSource.transaction(async (manager) => {
      const eventId = newUuid();
      await manager.query(
        `INSERT INTO events (id, organization_id, mode, type, data, target_webhook_id, relayed_at)
         VALUES ($1, $2, $3, $4, $5, $6, now())`,
        [
          eventId,
          tenant.organizationId,
          tenant.mode,
          eventType,
          JSON.stringify({ ...sampleEventData(eventType), ...testData }),
          webhook.id,
        ],
      );
      const delivery = await this.schedule(manager, webhook, [eventId], 'test', 1, null);
      return { delivery: delivery[0]!, event: { id: eventId, type: eventType }, attempts: [] };
    });
  }

  async listDeliveries(
    tenant: Tenant,
    webhookPublicId: string,
    query: { limit: number; offset: number; state?: DeliveryState | undefined },
  ): Promise<{ records: DeliveryWithAttempts[]; total: number }> {
    const webhook = await this.webhooks.get(tenant, webhookPublicId);
    const [deliveries, total] = await this.dataSource
      .getRepository(WebhookDeliveryEntity)
      .findAndCount({
        where: { webhookId: webhook.id, ...(query.state ? { state: query.state } : {}) },
        order: { createdAt: 'DESC', id: 'DESC' },
        take: query.limit,
        skip: query.offset,
      });
    return { records: await this.withDetails(deliveries), total };
  }

  async pageDeliveries(
    tenant: Tenant,
    webhookPublicId: string,
    query: PageRequest & { state?: DeliveryState | undefined },
  ): Promise<KeysetPage<DeliveryWithAttempts & { id: string }>> {
    const webhook = await this.webhooks.get(tenant, webhookPublicId);
    const where = new SqlConditions();
    where.and(`webhook_id = ${where.param(webhook.id)}`);
    if (query.state) where.and(`state = ${where.param(query.state)}`);
    const page = await keysetPage(
      (text, parameters) => this.dataSource.query(text, parameters),
      {
        table: 'webhook_deliveries',
        where,
        scope: { webhook_id: webhook.id },
        readRows: readEntities(this.dataSource, WebhookDeliveryEntity),
      },
      query,
    );
    const rows = await this.withDetails(page.rows);
    return { ...page, rows: rows.map((row) => ({ ...row, id: row.delivery.id })) };
  }

  async getDelivery(
    tenant: Tenant,
    webhookPublicId: string,
    deliveryPublicId: string,
  ): Promise<DeliveryWithAttempts> {
    const delivery = await this.findDelivery(tenant, webhookPublicId, deliveryPublicId);
    return (await this.withDetails([delivery]))[0]!;
  }

  /** One more attempt of a finished delivery, now; it does not restart the schedule. */
  async retryDelivery(
    tenant: Tenant,
    webhookPublicId: string,
    deliveryPublicId: string,
  ): Promise<DeliveryWithAttempts> {
    const delivery = await this.findDelivery(tenant, webhookPublicId, deliveryPublicId);
    await this.dataSource.transaction(async (manager) => {
      const [, reopened] = (await manager.query(
        `UPDATE webhook_deliveries
            SET state = 'pending', max_attempts = attempts + 1, next_attempt_at = now(),
                completed_at = NULL
          WHERE id = $1 AND state <> 'pending'`,
        [delivery.id],
      )) as [unknown, number];
      if (reopened === 0) {
        throw new AppError(
          'CONFLICT',
          'This delivery is still pending; its next attempt is scheduled',
          {
            field: 'delivery_id',
            issue: 'already pending',
          },
        );
      }
      if (delivery.origin === 'event') {
        await manager.query(
          `UPDATE events SET pending_webhooks = pending_webhooks + 1 WHERE id = $1`,
          [delivery.eventId],
        );
      }
      await notifyDeliverers(manager);
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
    let after: Pick<EventEntity, 'id'> | null = null;
    if (request.sinceEventId !== undefined) {
      const id = parsePublicId('event', request.sinceEventId);
      after =
        id === null
          ? null
          : await this.dataSource.getRepository(EventEntity).findOne({
              select: { id: true },
              where: { id, organizationId: tenant.organizationId, mode: tenant.mode },
            });
      if (!after) throw AppError.notFound('event', request.sinceEventId);
    }
    const everything = webhook.events.includes(ALL_EVENTS);
    const candidates: { id: string; acknowledged: boolean; pending: boolean }[] =
      await this.dataSource.query(
        `SELECT e.id,
                EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = $3 AND d.event_id = e.id
                          AND d.state = 'succeeded') AS acknowledged,
                EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = $3 AND d.event_id = e.id
                          AND d.state = 'pending') AS pending
           FROM events e
          WHERE e.organization_id = $1 AND e.mode = $2 AND e.target_webhook_id IS NULL
            AND ($4::boolean OR e.type = ANY($5::text[]))
            AND NOT (e.type = 'webhook.failed' AND e.data->>'webhook_id' = $6)
            AND ($7::timestamptz IS NULL OR e.created_at >= $7)
            AND ($8::timestamptz IS NULL OR e.created_at < $8)
            AND ($9::uuid IS NULL
                 OR (e.created_at, e.id) > (SELECT created_at, id FROM events WHERE id = $9))
          ORDER BY e.created_at, e.id
          LIMIT ${MAX_REPLAY_EVENTS + 1}`,
        [
          tenant.organizationId,
          tenant.mode,
          webhook.id,
          everything,
          webhook.events,
          toPublicId('webhook', webhook.id),
          request.from ?? null,
          request.to ?? null,
          after?.id ?? null,
        ],
      );
    if (candidates.length > MAX_REPLAY_EVENTS) {
      throw AppError.invalid(
        'from',
        `the range holds more than ${MAX_REPLAY_EVENTS} events; replay it in smaller ranges`,
      );
    }
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
    await this.dataSource.transaction((manager) =>
      this.schedule(
        manager,
        webhook,
        chosen.map((event) => event.id),
        'replay',
        MAX_ATTEMPTS,
        replayId,
      ),
    );
    return { ...result, replayId };
  }

  /** Event ids in order become deliveries due now, in that order. */
  private async schedule(
    manager: EntityManager,
    webhook: WebhookEntity,
    eventIds: string[],
    origin: 'test' | 'replay',
    maxAttempts: number,
    replayId: string | null,
  ): Promise<WebhookDeliveryEntity[]> {
    const ids = eventIds.map(() => newUuid());
    // Creation times one microsecond apart keep the order for the deliverer.
    await manager.query(
      `INSERT INTO webhook_deliveries
         (id, organization_id, mode, webhook_id, event_id, origin, max_attempts, next_attempt_at,
          replay_id, created_at)
       SELECT d.id, $3, $4, $5, d.event_id, $6, $7,
              now() + (d.position * interval '1 microsecond'), $8,
              now() + (d.position * interval '1 microsecond')
         FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS d(id, event_id, position)`,
      [
        ids,
        eventIds,
        webhook.organizationId,
        webhook.mode,
        webhook.id,
        origin,
        maxAttempts,
        replayId,
      ],
    );
    await notifyDeliverers(manager);
    return manager.getRepository(WebhookDeliveryEntity).findBy(ids.map((id) => ({ id })));
  }

  private async findDelivery(
    tenant: Tenant,
    webhookPublicId: string,
    deliveryPublicId: string,
  ): Promise<WebhookDeliveryEntity> {
    const webhook = await this.webhooks.get(tenant, webhookPublicId);
    const id = parsePublicId('webhookDelivery', deliveryPublicId);
    const delivery =
      id === null
        ? null
        : await this.dataSource
            .getRepository(WebhookDeliveryEntity)
            .findOneBy({ id, webhookId: webhook.id });
    if (!delivery) throw AppError.notFound('delivery', deliveryPublicId);
    return delivery;
  }

  private async withDetails(deliveries: WebhookDeliveryEntity[]): Promise<DeliveryWithAttempts[]> {
    if (deliveries.length === 0) return [];
    const ids = deliveries.map((delivery) => delivery.id);
    const attempts = await this.dataSource
      .getRepository(WebhookAttemptEntity)
      .createQueryBuilder('a')
      .where('a.delivery_id = ANY(:ids)', { ids })
      .orderBy('a.attempt_number', 'ASC')
      .getMany();
    const events = await this.dataSource
      .getRepository(EventEntity)
      .createQueryBuilder('e')
      .select(['e.id', 'e.type'])
      .where('e.id = ANY(:ids)', { ids: deliveries.map((delivery) => delivery.eventId) })
      .getMany();
    const typeOf = new Map(events.map((event) => [event.id, event.type]));
    return deliveries.map((delivery) => ({
      delivery,
      event: { id: delivery.eventId, type: typeOf.get(delivery.eventId) ?? 'unknown' },
      attempts: attempts.filter((attempt) => attempt.deliveryId === delivery.id),
    }));
  }
}
