import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, sealSecret, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql, type KeysetPage, type PageRequest } from '#database';
import type { WebhookEntity, EnvelopeFormat } from './entities/webhook.entity.js';
import { EVENT_TYPES, EventsRepository } from '#events';
import { DestinationPolicy, parseReceiverUrl } from '#outbound';
import { generateSigningSecret } from './signatures.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import {
  WEBHOOK_SETTINGS,
  WebhooksRepository,
  type WebhookSettings,
} from './webhooks.repository.js';

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
    private readonly sql: Sql,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly events: EventsRepository,
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
    const settings: WebhookSettings = {
      url,
      events: checkedEvents(input.events),
      active: input.active ?? true,
      status: input.active === false ? 'disabled' : 'enabled',
      statusReason: null,
      envelopeFormat: input.envelopeFormat ?? 'standard',
      secretSealed: this.seal(secret),
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
    };
    const webhook = await this.sql.transaction((tx) =>
      this.webhooks.insert(tx, tenant, newUuid(), settings),
    );
    return { webhook, secret };
  }

  list(
    tenant: Tenant,
    page: { limit: number; offset: number },
  ): Promise<{ records: WebhookEntity[]; total: number }> {
    return this.webhooks.list(tenant, page);
  }

  page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<WebhookEntity>> {
    return this.webhooks.page(tenant, request);
  }

  async get(tenant: Tenant, publicId: string): Promise<WebhookEntity> {
    const id = parsePublicId('webhook', publicId);
    const webhook = id === null ? null : await this.webhooks.find(tenant, id);
    if (!webhook) throw AppError.notFound('webhook', publicId);
    return webhook;
  }

  /** Changes the fields given. Activating a failed or disabled webhook makes it `enabled`. */
  async update(
    tenant: Tenant,
    publicId: string,
    changes: Partial<Omit<WebhookInput, 'secret'>>,
  ): Promise<WebhookEntity> {
    const before = await this.get(tenant, publicId);
    const webhook = { ...before };
    if (changes.url !== undefined) webhook.url = await this.checkedUrl(changes.url);
    if (changes.events !== undefined) webhook.events = checkedEvents(changes.events);
    if (changes.envelopeFormat !== undefined) webhook.envelopeFormat = changes.envelopeFormat;
    if (changes.active !== undefined && changes.active !== webhook.active) {
      webhook.active = changes.active;
      webhook.status = changes.active ? 'enabled' : 'disabled';
      webhook.statusReason = changes.active ? null : 'deactivated through the API';
    }
    return this.save(tenant, publicId, before, webhook);
  }

  /** Version 1's PUT: every field as given, defaults for the rest; a given secret replaces the old at once. */
  async replace(tenant: Tenant, publicId: string, input: WebhookInput): Promise<WebhookEntity> {
    const before = await this.get(tenant, publicId);
    const webhook = { ...before };
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
    return this.save(tenant, publicId, before, webhook);
  }

  /** Deletes the webhook with its delivery history; its pending deliveries stop. */
  async delete(tenant: Tenant, publicId: string): Promise<void> {
    const webhook = await this.get(tenant, publicId);
    await this.sql.transaction(async (tx) => {
      // The lock order of DeliveryOutcomes: the deliveries, the events, the webhook, each by id.
      // Locking the events first waited for a delivery whose outcome was being written while
      // that write waited for one of these events: a deadlock.
      const pending = await this.deliveries.lockForDeletion(tx, tenant, webhook.id);
      await this.events.adjustPendingWebhooks(tx, tenant, pending, -1);
      await this.deliveries.deleteOfWebhook(tx, tenant, webhook.id);
      await this.webhooks.delete(tx, tenant, webhook.id);
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
    const before = await this.get(tenant, publicId);
    const webhook = { ...before };
    const secret = options.secret ?? generateSigningSecret();
    const overlap = options.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
    webhook.previousSecretSealed = overlap > 0 ? webhook.secretSealed : null;
    webhook.previousSecretExpiresAt = overlap > 0 ? new Date(Date.now() + overlap * 1000) : null;
    webhook.secretSealed = this.seal(secret);
    return { webhook: await this.save(tenant, publicId, before, webhook), secret };
  }

  /** Writes the settings that differ from `before` (nothing at all when none does). */
  private async save(
    tenant: Tenant,
    publicId: string,
    before: WebhookEntity,
    after: WebhookEntity,
  ): Promise<WebhookEntity> {
    const changes = changedSettings(before, after);
    if (Object.keys(changes).length === 0) return before;
    const saved = await this.sql.transaction((tx) =>
      this.webhooks.update(tx, tenant, before.id, changes),
    );
    if (!saved) throw AppError.notFound('webhook', publicId);
    return saved;
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

/** The settings of `after` that differ from `before`'s. */
function changedSettings(before: WebhookEntity, after: WebhookEntity): Partial<WebhookSettings> {
  const changes: Partial<Record<keyof WebhookSettings, unknown>> = {};
  for (const field of WEBHOOK_SETTINGS) {
    if (!sameValue(before[field], after[field])) changes[field] = after[field];
  }
  return changes as Partial<WebhookSettings>;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => item === b[i]);
  }
  return a === b;
}
