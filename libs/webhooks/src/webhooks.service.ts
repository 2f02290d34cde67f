import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError, newKey, parsePublicId, sealSecret, toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import {
  EventEntity,
  WebhookAttemptEntity,
  WebhookDeliveryEntity,
  WebhookEntity,
  type DeliveryState,
  type EnvelopeFormat,
  keysetPage,
  type KeysetPage,
} from '#database';
import { EVENT_TYPES } from '#events';
import { DestinationPolicy, parseReceiverUrl } from './destination-policy.js';
import { notifyDeliverers } from './delivery-notifications.js';
import { MAX_ATTEMPTS } from './retry-schedule.js';
import { generateSigningSecret } from './signatures.js';
import { sampleEventData } from './sample-events.js';

export const ALL_EVENTS = '*';
export const MAX_SUBSCRIPTIONS = EVENT_TYPES.length + 1;
export const SECRET_LENGTH = { min: 24, max: 256 } as const;
/** How long the previous secret keeps signing after a rotation, unless the caller says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;
/** At most this many events are replayed by one request; narrow the range for more. */
export const MAX_REPLAY_EVENTS = 10_000;

export interface WebhookInput {
  url: string;
  events: string[];
  secret?: string | undefined;
  active?: boolean | undefined;
  envelopeFormat?: EnvelopeFormat | undefined;
}

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

/** Managing webhook endpoints and their deliveries, for the API. Every read is scoped by org and mode. */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly policy: DestinationPolicy,
    private readonly settings: AppSettings,
  ) {}

  async create(
    tenant: Tenant,
    input: WebhookInput,
  ): Promise<{ webhook: WebhookEntity; secret: string }> {
    const url = await this.checkedUrl(input.url);
    const secret = input.secret ?? generateSigningSecret();
    const webhook = this.dataSource.getRepository(WebhookEntity).create({
      id: newKey('webhook').uuid,
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      url,
      events: checkedEvents(input.events),
      active: input.active ?? true,
      status: input.active === false ? 'disabled' : 'enabled',
      statusReason: null,
      envelopeFormat: input.envelopeFormat ?? 'standard',
      secretSealed: this.seal(secret),
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
    });
    return { webhook: await this.dataSource.getRepository(WebhookEntity).save(webhook), secret };
  }

  async list(
    tenant: Tenant,
    page: { limit: number; offset: number },
  ): Promise<{ records: WebhookEntity[]; total: number }> {
    const [records, total] = await this.dataSource.getRepository(WebhookEntity).findAndCount({
      where: { organizationId: tenant.organizationId, mode: tenant.mode },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
    return { records, total };
  }

  async page(
    tenant: Tenant,
    afterId: string | null,
    perPage: number,
  ): Promise<KeysetPage<WebhookEntity>> {
    const query = this.dataSource
      .getRepository(WebhookEntity)
      .createQueryBuilder('w')
      .where('w.organization_id = :organizationId AND w.mode = :mode', tenant);
    return keysetPage(query, afterId, perPage);
  }

  async get(tenant: Tenant, publicId: string): Promise<WebhookEntity> {
    const id = parsePublicId('webhook', publicId);
    const webhook =
      id === null
        ? null
        : await this.dataSource.getRepository(WebhookEntity).findOneBy({
            id,
            organizationId: tenant.organizationId,
            mode: tenant.mode,
          });
    if (!webhook) throw AppError.notFound('webhook', publicId);
    return webhook;
  }

  /** Changes the fields given. Activating a failed or disabled webhook makes it `enabled`. */
  async update(
    tenant: Tenant,
    publicId: string,
    changes: Partial<Omit<WebhookInput, 'secret'>>,
  ): Promise<WebhookEntity> {
    const webhook = await this.get(tenant, publicId);
    if (changes.url !== undefined) webhook.url = await this.checkedUrl(changes.url);
    if (changes.events !== undefined) webhook.events = checkedEvents(changes.events);
    if (changes.envelopeFormat !== undefined) webhook.envelopeFormat = changes.envelopeFormat;
    if (changes.active !== undefined && changes.active !== webhook.active) {
      webhook.active = changes.active;
      webhook.status = changes.active ? 'enabled' : 'disabled';
      webhook.statusReason = changes.active ? null : 'deactivated through the API';
    }
    return this.dataSource.getRepository(WebhookEntity).save(webhook);
  }

  /** Version 1's PUT: every field as given, defaults for the rest; a given secret replaces the old at once. */
  async replace(tenant: Tenant, publicId: string, input: WebhookInput): Promise<WebhookEntity> {
    const webhook = await this.get(tenant, publicId);
    webhook.url = await this.checkedUrl(input.url);
    webhook.events = checkedEvents(input.events);
    webhook.envelopeFormat = input.envelopeFormat ?? 'standard';
    const active = input.active ?? true;
    if (active !== webhook.active || active) {
      webhook.status = active ? 'enabled' : 'disabled';
      webhook.statusReason = active ? null : 'deactivated through the API';
    }
    webhook.active = active;
    if (input.secret !== undefined) {
      webhook.secretSealed = this.seal(input.secret);
      webhook.previousSecretSealed = null;
      webhook.previousSecretExpiresAt = null;
    }
    return this.dataSource.getRepository(WebhookEntity).save(webhook);
  }

  /** Deletes the webhook with its delivery history; its pending deliveries stop. */
  async delete(tenant: Tenant, publicId: string): Promise<void> {
    const webhook = await this.get(tenant, publicId);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE events e SET pending_webhooks = greatest(e.pending_webhooks - 1, 0)
           FROM webhook_deliveries d
          WHERE d.webhook_id = $1 AND d.state = 'pending' AND d.origin = 'event' AND e.id = d.event_id`,
        [webhook.id],
      );
      await manager.query(
        `WITH gone AS (DELETE FROM webhook_deliveries WHERE webhook_id = $1 RETURNING id)
         DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM gone)`,
        [webhook.id],
      );
      await manager.delete(WebhookEntity, { id: webhook.id });
    });
  }

  /**
   * A new signing secret (given, or generated); the previous one keeps signing
   * for `overlapSeconds` so receivers can switch without losing deliveries.
   */
  async rotateSecret(
    tenant: Tenant,
    publicId: string,
    options: { secret?: string | undefined; overlapSeconds?: number | undefined },
  ): Promise<{ webhook: WebhookEntity; secret: string }> {
    const webhook = await this.get(tenant, publicId);
    const secret = options.secret ?? generateSigningSecret();
    const overlap = options.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
    webhook.previousSecretSealed = overlap > 0 ? webhook.secretSealed : null;
    webhook.previousSecretExpiresAt = overlap > 0 ? new Date(Date.now() + overlap * 1000) : null;
    webhook.secretSealed = this.seal(secret);
    return { webhook: await this.dataSource.getRepository(WebhookEntity).save(webhook), secret };
  }

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
    const webhook = await this.get(tenant, publicId);
    if (!(EVENT_TYPES as readonly string[]).includes(eventType)) {
      throw AppError.invalid('event_type', `must be one of ${EVENT_TYPES.join(', ')}`);
    }
    return this.dataSource.transaction(async (manager) => {
      const eventId = newKey('event').uuid;
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
    const webhook = await this.get(tenant, webhookPublicId);
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
    query: { afterId: string | null; perPage: number; state?: DeliveryState | undefined },
  ): Promise<KeysetPage<DeliveryWithAttempts & { id: string }>> {
    const webhook = await this.get(tenant, webhookPublicId);
    const select = this.dataSource
      .getRepository(WebhookDeliveryEntity)
      .createQueryBuilder('d')
      .where('d.webhook_id = :webhookId', { webhookId: webhook.id });
    if (query.state) select.andWhere('d.state = :state', { state: query.state });
    const page = await keysetPage(select, query.afterId, query.perPage);
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
    const webhook = await this.get(tenant, request.webhookId);
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
    const replayId = newKey('replay');
    await this.dataSource.transaction((manager) =>
      this.schedule(
        manager,
        webhook,
        chosen.map((event) => event.id),
        'replay',
        MAX_ATTEMPTS,
        replayId.uuid,
      ),
    );
    return { ...result, replayId: replayId.uuid };
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
    const ids = eventIds.map(() => newKey('webhookDelivery').uuid);
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
    const webhook = await this.get(tenant, webhookPublicId);
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

  private async checkedUrl(raw: string): Promise<string> {
    const url = parseReceiverUrl(raw);
    await this.policy.assertReachable(url);
    return url.toString();
  }

  private seal(secret: string): string {
    return sealSecret(secret, this.settings.signingKeySecret);
  }
}

/** Event names of the catalogue, or `*`; no duplicates. */
export function checkedEvents(events: string[]): string[] {
  const unknown = events.filter(
    (name) => name !== ALL_EVENTS && !(EVENT_TYPES as readonly string[]).includes(name),
  );
  if (unknown.length > 0) {
    throw AppError.invalid(
      'events',
      `unknown event ${unknown.map((name) => `"${name}"`).join(', ')}; use names of the event catalogue or "*"`,
    );
  }
  return [...new Set(events)];
}
