import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError, newUuid, parsePublicId, sealSecret, type Tenant } from '#common';
import { AppSettings } from '#config';
import {
  keysetPage,
  readEntities,
  SqlConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
} from '#database';
import { WebhookEntity, type EnvelopeFormat } from './entities/webhook.entity.js';
import { EVENT_TYPES } from '#events';
import { DestinationPolicy, parseReceiverUrl } from '#outbound';
import { generateSigningSecret } from './signatures.js';

export const ALL_EVENTS = '*';
export const MAX_SUBSCRIPTIONS = EVENT_TYPES.length + 1;
export const SECRET_LENGTH = { min: 24, max: 256 } as const;
/** How long the previous secret keeps signing after a rotation, unless the caller says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;

export interface WebhookInput {
  url: string;
  events: string[];
  secret?: string | undefined;
  active?: boolean | undefined;
  envelopeFormat?: EnvelopeFormat | undefined;
}

/** Managing webhook endpoints, for the API. Every read is scoped by organisation and mode. */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly policy: DestinationPolicy,
    private readonly settings: AppSettings,
  ) {}

  /**
   * The addresses every delivery leaves from (WEBHOOK_SOURCE_ADDRESSES), the same for every
   * organisation and mode; empty when the host's default address is used.
   */
  sourceAddresses(): string[] {
    return [...this.settings.webhooks.sourceAddresses];
  }

  async create(
    tenant: Tenant,
    input: WebhookInput,
  ): Promise<{ webhook: WebhookEntity; secret: string }> {
    const url = await this.checkedUrl(input.url);
    const secret = input.secret ?? generateSigningSecret();
    const webhook = this.dataSource.getRepository(WebhookEntity).create({
      id: newUuid(),
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

  async page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<WebhookEntity>> {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param(tenant.organizationId)}`);
    where.and(`mode = ${where.param(tenant.mode)}`);
    return keysetPage(
      (text, parameters) => this.dataSource.query(text, parameters),
      {
        table: 'webhooks',
        where,
        scope: tenantScope(tenant),
        readRows: readEntities(this.dataSource, WebhookEntity),
      },
      request,
    );
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
    webhook.active = input.active ?? true;
    webhook.status = webhook.active ? 'enabled' : 'disabled';
    webhook.statusReason = webhook.active ? null : 'deactivated through the API';
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
      // The lock order of AttemptRecords.write: the deliveries, the events, the webhook, each by
      // id. Locking the events first waited for a delivery whose outcome was being written while
      // that write waited for one of these events: a deadlock.
      await manager.query(
        `SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id FOR UPDATE`,
        [webhook.id],
      );
      await manager.query(
        `WITH event_locks AS MATERIALIZED (
           SELECT e.id FROM events e
            WHERE e.id IN (SELECT event_id FROM webhook_deliveries
                            WHERE webhook_id = $1 AND state = 'pending' AND origin = 'event')
            ORDER BY e.id FOR NO KEY UPDATE OF e
         )
         UPDATE events e SET pending_webhooks = greatest(e.pending_webhooks - 1, 0)
           FROM event_locks l WHERE e.id = l.id`,
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
   */ private async checkedUrl(raw: string): Promise<string> {
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
