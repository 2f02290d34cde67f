import { Injectable } from '@nestjs/common';
import {
  AppError,
  newUuid,
  parsePublicId,
  sealSecret,
  toPublicId,
  type Principal,
  type Tenant,
} from '#common';
import { AppSettings } from '#config';
import { Sql, type KeysetPage, type PageRequest, type Transaction } from '#database';
import type { WebhookEntity, EnvelopeFormat } from './entities/webhook.entity.js';
import {
  AuditLog,
  auditChanges,
  EVENT_TYPES,
  EventsRepository,
  REDACTED,
  type AuditEntry,
} from '#events';
import { DestinationPolicy, parseReceiverUrl, REFUSED_DESTINATION } from '#outbound';
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
    principal: Principal,
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
    const webhook = await this.sql.transaction(async (tx) => {
      const created = await this.webhooks.insert(tx, principal, newUuid(), settings);
      await audit(tx, principal, created, {
        action: 'webhook.created',
        changes: auditChanges({}, auditedFields(created)),
      });
      return created;
    });
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
    principal: Principal,
    publicId: string,
    changes: Partial<Omit<WebhookInput, 'secret'>>,
  ): Promise<WebhookEntity> {
    const before = await this.get(principal, publicId);
    const webhook = { ...before };
    if (changes.url !== undefined) webhook.url = await this.checkedUrl(changes.url);
    if (changes.events !== undefined) webhook.events = checkedEvents(changes.events);
    if (changes.envelopeFormat !== undefined) webhook.envelopeFormat = changes.envelopeFormat;
    if (changes.active !== undefined && changes.active !== webhook.active) {
      webhook.active = changes.active;
      webhook.status = changes.active ? 'enabled' : 'disabled';
      webhook.statusReason = changes.active ? null : 'deactivated through the API';
    }
    return this.save(principal, publicId, before, webhook, 'webhook.updated');
  }

  /** Version 1's PUT: every field as given, defaults for the rest; a given secret replaces the old at once. */
  async replace(
    principal: Principal,
    publicId: string,
    input: WebhookInput,
  ): Promise<WebhookEntity> {
    const before = await this.get(principal, publicId);
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
    return this.save(principal, publicId, before, webhook, 'webhook.updated');
  }

  /** Deletes the webhook with its delivery history; its pending deliveries stop. */
  async delete(principal: Principal, publicId: string): Promise<void> {
    const webhook = await this.get(principal, publicId);
    await this.sql.transaction(async (tx) => {
      // The lock order of DeliveryOutcomes: the deliveries, the events, the webhook, each by id.
      // Locking the events first waited for a delivery whose outcome was being written while
      // that write waited for one of these events: a deadlock.
      const pending = await this.deliveries.lockForDeletion(tx, principal, webhook.id);
      await this.events.adjustPendingWebhooks(tx, principal, pending, -1);
      await this.deliveries.deleteOfWebhook(tx, principal, webhook.id);
      await this.webhooks.delete(tx, principal, webhook.id);
      await audit(tx, principal, webhook, { action: 'webhook.deleted' });
    });
  }

  /**
   * A new signing secret (given, or generated); the previous one keeps signing
   * for `overlapSeconds` so receivers can switch without losing deliveries.
   */
  async rotateSecret(
    principal: Principal,
    publicId: string,
    options: { secret?: string | undefined; overlapSeconds?: number | undefined },
  ): Promise<{ webhook: WebhookEntity; secret: string }> {
    const before = await this.get(principal, publicId);
    const webhook = { ...before };
    const secret = options.secret ?? generateSigningSecret();
    const overlap = options.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
    webhook.previousSecretSealed = overlap > 0 ? webhook.secretSealed : null;
    webhook.previousSecretExpiresAt = overlap > 0 ? new Date(Date.now() + overlap * 1000) : null;
    webhook.secretSealed = this.seal(secret);
    const saved = await this.save(principal, publicId, before, webhook, 'webhook.secret_rotated', {
      overlap_seconds: overlap,
    });
    return { webhook: saved, secret };
  }

  /**
   * Writes the settings that differ from `before` (nothing at all when none
   * does), and records `action` in the audit log in the same transaction
   * whether anything changed or not: an update with the fields it changed
   * (a replaced secret only as "changed"), a rotation as the action alone.
   */
  private async save(
    principal: Principal,
    publicId: string,
    before: WebhookEntity,
    after: WebhookEntity,
    action: 'webhook.updated' | 'webhook.secret_rotated',
    details?: Record<string, unknown>,
  ): Promise<WebhookEntity> {
    const changes = changedSettings(before, after);
    return this.sql.transaction(async (tx) => {
      const saved =
        Object.keys(changes).length === 0
          ? before
          : await this.webhooks.update(tx, principal, before.id, changes);
      if (!saved) throw AppError.notFound('webhook', publicId);
      await audit(tx, principal, saved, {
        action,
        // What this call set (a status the deliverer set meanwhile is not the caller's doing).
        changes: action === 'webhook.updated' ? updateChanges(before, after) : null,
        details: details ?? null,
      });
      return saved;
    });
  }

  private async checkedUrl(raw: string): Promise<string> {
    try {
      const url = parseReceiverUrl(raw);
      await this.policy.assertReachable(url);
      return url.toString();
    } catch (error) {
      throw withLocalReceiverHint(error);
    }
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

/** A webhook's settings as the API names them, for the audit log; never its secrets. */
function auditedFields(webhook: WebhookEntity): Record<string, unknown> {
  return {
    url: webhook.url,
    events: webhook.events,
    active: webhook.active,
    status: webhook.status,
    status_reason: webhook.statusReason,
    envelope_format: webhook.envelopeFormat,
  };
}

/** What an update changed; a secret replaced (v1 PUT) is kept as changed, never its values. */
function updateChanges(before: WebhookEntity, after: WebhookEntity) {
  const changes = auditChanges(auditedFields(before), auditedFields(after)) ?? {};
  if (before.secretSealed !== after.secretSealed) {
    changes.secret = { before: REDACTED, after: REDACTED };
  }
  return Object.keys(changes).length === 0 ? null : changes;
}

function audit(
  tx: Transaction,
  principal: Principal,
  webhook: WebhookEntity,
  entry: Pick<AuditEntry, 'action' | 'changes' | 'details'>,
): Promise<void> {
  return AuditLog.record(tx, principal, {
    ...entry,
    actor: principal,
    target: { type: 'webhook', id: toPublicId('webhook', webhook.id) },
  });
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

/** Refusals a developer meets pointing a webhook at their own machine. */
const LOCAL_RECEIVER_REFUSALS = new Set(['must use https://', REFUSED_DESTINATION]);
const LOCAL_RECEIVER_HINT =
  'to receive webhooks on your own machine, run `sas webhooks listen --forward-to http://localhost:4242/hook` (no endpoint needed); a self-hosted service delivers to private hosts listed in OUTBOUND_PRIVATE_ALLOWLIST';

/** A refused `http://` or private receiver, with how to receive webhooks locally all the same. */
function withLocalReceiverHint(error: unknown): unknown {
  if (!(error instanceof AppError) || !LOCAL_RECEIVER_REFUSALS.has(String(error.details.issue))) {
    return error;
  }
  return AppError.invalid(
    String(error.details.field),
    `${error.details.issue}; ${LOCAL_RECEIVER_HINT}`,
  );
}
