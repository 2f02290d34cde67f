import { Injectable } from '@nestjs/common';
import type { Mode, Tenant } from '#common';
import {
  keysetPage,
  rowMapping,
  Sql,
  SqlConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import type { WebhookEntity, WebhookStatus } from './entities/webhook.entity.js';

const WEBHOOK = rowMapping<WebhookEntity, WebhookColumn>('webhooks', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  url: 'url',
  events: 'events',
  active: 'active',
  status: 'status',
  status_reason: 'statusReason',
  envelope_format: 'envelopeFormat',
  secret_sealed: 'secretSealed',
  previous_secret_sealed: 'previousSecretSealed',
  previous_secret_expires_at: 'previousSecretExpiresAt',
  event_sequence: 'eventSequence',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
});

type WebhookColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'url'
  | 'events'
  | 'active'
  | 'status'
  | 'status_reason'
  | 'envelope_format'
  | 'secret_sealed'
  | 'previous_secret_sealed'
  | 'previous_secret_expires_at'
  | 'event_sequence'
  | 'created_at'
  | 'updated_at';

type WebhookRow = Record<WebhookColumn, unknown>;

/** What a webhook's owner sets; the database sets the rest (times, the event sequence). */
export type WebhookSettings = Pick<
  WebhookEntity,
  | 'url'
  | 'events'
  | 'active'
  | 'status'
  | 'statusReason'
  | 'envelopeFormat'
  | 'secretSealed'
  | 'previousSecretSealed'
  | 'previousSecretExpiresAt'
>;

/** The column of each setting. */
const SETTING_COLUMNS: Record<keyof WebhookSettings, WebhookColumn> = {
  url: 'url',
  events: 'events',
  active: 'active',
  status: 'status',
  statusReason: 'status_reason',
  envelopeFormat: 'envelope_format',
  secretSealed: 'secret_sealed',
  previousSecretSealed: 'previous_secret_sealed',
  previousSecretExpiresAt: 'previous_secret_expires_at',
};
/** The fields of WebhookSettings. */
export const WEBHOOK_SETTINGS = Object.keys(SETTING_COLUMNS) as (keyof WebhookSettings)[];

/** An active webhook as the outbox fan-out matches it against events. */
export interface Subscriber {
  id: string;
  organizationId: string;
  mode: Mode;
  events: string[];
  createdAt: Date;
}

/** The `webhooks` table: a tenant's registered receivers. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly sql: Sql) {}

  /** The new webhook as stored, with the times and sequence the database gave it. */
  async insert(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    settings: WebhookSettings,
  ): Promise<WebhookEntity> {
    const [row] = await tx.rows<WebhookRow>(
      `INSERT INTO webhooks (id, organization_id, mode, url, events, active, status, status_reason,
                             envelope_format, secret_sealed, previous_secret_sealed,
                             previous_secret_expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       RETURNING ${WEBHOOK.selectList}`,
      [
        id,
        tenant.organizationId,
        tenant.mode,
        settings.url,
        settings.events,
        settings.active,
        settings.status,
        settings.statusReason,
        settings.envelopeFormat,
        settings.secretSealed,
        settings.previousSecretSealed,
        settings.previousSecretExpiresAt,
      ],
    );
    return WEBHOOK.fromRow(row!);
  }

  /** An offset page of the tenant's webhooks, newest first, with how many there are. */
  async list(
    tenant: Tenant,
    page: { limit: number; offset: number },
    on: Queryable = this.sql,
  ): Promise<{ records: WebhookEntity[]; total: number }> {
    const [rows, [count]] = await Promise.all([
      on.rows<WebhookRow>(
        `SELECT ${WEBHOOK.selectList} FROM webhooks WHERE organization_id = $1 AND mode = $2
          ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [tenant.organizationId, tenant.mode, page.limit, page.offset],
      ),
      on.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM webhooks WHERE organization_id = $1 AND mode = $2`,
        [tenant.organizationId, tenant.mode],
      ),
    ]);
    return { records: rows.map((row) => WEBHOOK.fromRow(row)), total: count!.total };
  }

  /** A keyset page of the tenant's webhooks, newest first. */
  page(
    tenant: Tenant,
    request: PageRequest,
    on: Queryable = this.sql,
  ): Promise<KeysetPage<WebhookEntity>> {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param(tenant.organizationId)}`);
    where.and(`mode = ${where.param(tenant.mode)}`);
    return keysetPage(
      (text, parameters) => on.rows(text, parameters),
      {
        table: 'webhooks',
        where,
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) =>
          (
            await on.rows<WebhookRow>(
              `SELECT ${WEBHOOK.selectList} FROM webhooks WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map((row) => WEBHOOK.fromRow(row)),
      },
      request,
    );
  }

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<WebhookEntity | null> {
    const [row] = await on.rows<WebhookRow>(
      `SELECT ${WEBHOOK.selectList} FROM webhooks
        WHERE id = $1 AND organization_id = $2 AND mode = $3 LIMIT 1`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? WEBHOOK.fromRow(row) : null;
  }

  /**
   * Writes the settings given (only those: a status the deliverer set
   * meanwhile stays unless it is one of them) and moves `updated_at`;
   * the webhook as stored, or null when it is gone.
   */
  async update(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    changes: Partial<WebhookSettings>,
  ): Promise<WebhookEntity | null> {
    const fields = WEBHOOK_SETTINGS.filter((field) => field in changes);
    const [row] = await tx.rows<WebhookRow>(
      `UPDATE webhooks
          SET ${fields.map((field, i) => `${SETTING_COLUMNS[field]} = $${i + 4}, `).join('')}updated_at = now()
        WHERE id = $1 AND organization_id = $2 AND mode = $3
       RETURNING ${WEBHOOK.selectList}`,
      [id, tenant.organizationId, tenant.mode, ...fields.map((field) => changes[field])],
    );
    return row ? WEBHOOK.fromRow(row) : null;
  }

  async delete(tx: Transaction, tenant: Tenant, id: string): Promise<void> {
    await tx.query('DELETE FROM webhooks WHERE id = $1 AND organization_id = $2 AND mode = $3', [
      id,
      tenant.organizationId,
      tenant.mode,
    ]);
  }

  /**
   * The status the deliverer gives a webhook after an outcome, only from
   * `from` when given (a disabled webhook stays disabled); disabling also
   * deactivates it.
   */
  async setStatus(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    from: WebhookStatus | null,
    status: WebhookStatus,
    reason: string | null,
  ): Promise<void> {
    await tx.query(
      `UPDATE webhooks SET status = $3, status_reason = $4, active = active AND $3 <> 'disabled',
            updated_at = now()
      WHERE id = $1 AND ($2::text IS NULL OR status = $2) AND organization_id = $5 AND mode = $6`,
      [id, from, status, reason, tenant.organizationId, tenant.mode],
    );
  }

  /** The sequence number of the webhook's next event (`webhook.failed`). */
  async nextEventSequence(tx: Transaction, tenant: Tenant, id: string): Promise<number> {
    const [row] = await tx.rows<{ event_sequence: number }>(
      `UPDATE webhooks SET event_sequence = event_sequence + 1
        WHERE id = $1 AND organization_id = $2 AND mode = $3 RETURNING event_sequence`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row!.event_sequence;
  }

  /** The active webhooks of these organisations, both modes: what the outbox fan-out matches events against. */
  async subscribersAcrossTenants(
    organizationIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<Subscriber[]> {
    const rows = await on.rows<{
      id: string;
      organization_id: string;
      mode: Mode;
      events: string[];
      created_at: Date;
    }>(
      `SELECT id, organization_id, mode, events, created_at FROM webhooks
        WHERE active AND organization_id = ANY($1::uuid[])`,
      [organizationIds],
    );
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      mode: row.mode,
      events: row.events,
      createdAt: row.created_at,
    }));
  }
}
