import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import {
  keysetPage,
  rowMapping,
  Sql,
  SqlConditions,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import { DELIVERIES_CHANNEL } from './delivery-notifications.js';
import type { WebhookAttemptEntity } from './entities/webhook-attempt.entity.js';
import type {
  DeliveryOrigin,
  DeliveryState,
  WebhookDeliveryEntity,
} from './entities/webhook-delivery.entity.js';

const DELIVERY = rowMapping<WebhookDeliveryEntity, DeliveryColumn>('webhook_deliveries', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  webhook_id: 'webhookId',
  event_id: 'eventId',
  origin: 'origin',
  state: 'state',
  attempts: 'attempts',
  max_attempts: 'maxAttempts',
  next_attempt_at: 'nextAttemptAt',
  lease_until: 'leaseUntil',
  replay_id: 'replayId',
  last_status_code: 'lastStatusCode',
  last_error: 'lastError',
  created_at: 'createdAt',
  completed_at: 'completedAt',
});

type DeliveryColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'webhook_id'
  | 'event_id'
  | 'origin'
  | 'state'
  | 'attempts'
  | 'max_attempts'
  | 'next_attempt_at'
  | 'lease_until'
  | 'replay_id'
  | 'last_status_code'
  | 'last_error'
  | 'created_at'
  | 'completed_at';

type DeliveryRow = Record<DeliveryColumn, unknown>;

const ATTEMPT = rowMapping<WebhookAttemptEntity, AttemptColumn>('webhook_attempts', {
  id: 'id',
  delivery_id: 'deliveryId',
  attempt_number: 'attemptNumber',
  started_at: 'startedAt',
  duration_ms: 'durationMs',
  status_code: 'statusCode',
  response_body: 'responseBody',
  error: 'error',
});

type AttemptColumn =
  | 'id'
  | 'delivery_id'
  | 'attempt_number'
  | 'started_at'
  | 'duration_ms'
  | 'status_code'
  | 'response_body'
  | 'error';

/** One delivery the outbox fan-out creates: an event of `tenant` to one of its webhooks. */
export interface FanOutDelivery {
  id: string;
  tenant: Tenant;
  webhookId: string;
  eventId: string;
}

/** What a webhook's deliveries of an event came to, for a replay: acknowledged (2xx), or on their way. */
export interface DeliveredEvent {
  acknowledged: boolean;
  pending: boolean;
}

/**
 * `webhook_deliveries` and their `webhook_attempts`, as the API and the
 * outbox fan-out see them: created, listed, retried, replayed, deleted with
 * their webhook or their event. Leasing and outcomes, the deliverer's side,
 * are DeliveryLeasesRepository's.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * One delivery per (event, webhook) due now, in one statement that also
   * wakes the deliverers at commit. The unique (webhook, event) index makes
   * a repeated fan-out harmless.
   */
  async insertFanOutAcrossTenants(
    tx: Transaction,
    deliveries: readonly FanOutDelivery[],
    maxAttempts: number,
  ): Promise<void> {
    await tx.query(
      `WITH deliveries AS (
         INSERT INTO webhook_deliveries
           (id, organization_id, mode, webhook_id, event_id, origin, max_attempts, next_attempt_at)
         SELECT d.id, d.organization_id, d.mode, d.webhook_id, d.event_id, 'event', $6, now()
           FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[])
             AS d(id, organization_id, mode, webhook_id, event_id)
         ON CONFLICT (webhook_id, event_id) WHERE origin = 'event' DO NOTHING
       )
       SELECT pg_notify('${DELIVERIES_CHANNEL}', '')`,
      [
        deliveries.map((delivery) => delivery.id),
        deliveries.map((delivery) => delivery.tenant.organizationId),
        deliveries.map((delivery) => delivery.tenant.mode),
        deliveries.map((delivery) => delivery.webhookId),
        deliveries.map((delivery) => delivery.eventId),
        maxAttempts,
      ],
    );
  }

  /**
   * Deliveries `ids` of the events `eventIds` (in that order) to the
   * tenant's webhook, due now in that order: creation times one microsecond
   * apart keep it for the deliverer.
   */
  async schedule(
    tx: Transaction,
    tenant: Tenant,
    webhookId: string,
    deliveries: { ids: readonly string[]; eventIds: readonly string[] },
    origin: Extract<DeliveryOrigin, 'test' | 'replay'>,
    maxAttempts: number,
    replayId: string | null,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO webhook_deliveries
         (id, organization_id, mode, webhook_id, event_id, origin, max_attempts, next_attempt_at,
          replay_id, created_at)
       SELECT d.id, $3, $4, $5, d.event_id, $6, $7,
              now() + (d.position * interval '1 microsecond'), $8,
              now() + (d.position * interval '1 microsecond')
         FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS d(id, event_id, position)`,
      [
        deliveries.ids,
        deliveries.eventIds,
        tenant.organizationId,
        tenant.mode,
        webhookId,
        origin,
        maxAttempts,
        replayId,
      ],
    );
  }

  /** Wakes the deliverers once `tx` commits. */
  async notifyDeliverers(tx: Transaction): Promise<void> {
    await tx.query(`SELECT pg_notify('${DELIVERIES_CHANNEL}', '')`, []);
  }

  /**
   * A finished delivery due again now with one more attempt allowed; false
   * when it is still pending.
   */
  async reopen(tx: Transaction, tenant: Tenant, id: string): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE webhook_deliveries
            SET state = 'pending', max_attempts = attempts + 1, next_attempt_at = now(),
                completed_at = NULL
          WHERE id = $1 AND state <> 'pending' AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return (rowCount ?? 0) > 0;
  }

  /** An offset page of the webhook's deliveries, newest first, with how many there are. */
  async list(
    tenant: Tenant,
    webhookId: string,
    page: { limit: number; offset: number; state?: DeliveryState | undefined },
    on: Queryable = this.sql,
  ): Promise<{ records: WebhookDeliveryEntity[]; total: number }> {
    const where = deliveriesOf(tenant, webhookId, page.state);
    const counted = deliveriesOf(tenant, webhookId, page.state);
    const [rows, [count]] = await Promise.all([
      on.rows<DeliveryRow>(
        `SELECT ${DELIVERY.selectList} FROM webhook_deliveries WHERE ${where.sql}
          ORDER BY created_at DESC, id DESC
          LIMIT ${where.param(page.limit)} OFFSET ${where.param(page.offset)}`,
        where.parameters,
      ),
      on.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM webhook_deliveries WHERE ${counted.sql}`,
        counted.parameters,
      ),
    ]);
    return { records: rows.map((row) => DELIVERY.fromRow(row)), total: count!.total };
  }

  /** A keyset page of the webhook's deliveries, newest first. */
  page(
    tenant: Tenant,
    webhookId: string,
    state: DeliveryState | undefined,
    request: PageRequest,
    on: Queryable = this.sql,
  ): Promise<KeysetPage<WebhookDeliveryEntity>> {
    return keysetPage(
      (text, parameters) => on.rows(text, parameters),
      {
        table: 'webhook_deliveries',
        where: deliveriesOf(tenant, webhookId, state),
        scope: { organization_id: tenant.organizationId, mode: tenant.mode, webhook_id: webhookId },
        readRows: async (idsSql, parameters) =>
          (
            await on.rows<DeliveryRow>(
              `SELECT ${DELIVERY.selectList} FROM webhook_deliveries WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map((row) => DELIVERY.fromRow(row)),
      },
      request,
    );
  }

  async find(
    tenant: Tenant,
    webhookId: string,
    id: string,
    on: Queryable = this.sql,
  ): Promise<WebhookDeliveryEntity | null> {
    const [row] = await on.rows<DeliveryRow>(
      `SELECT ${DELIVERY.selectList} FROM webhook_deliveries
        WHERE id = $1 AND webhook_id = $2 AND organization_id = $3 AND mode = $4 LIMIT 1`,
      [id, webhookId, tenant.organizationId, tenant.mode],
    );
    return row ? DELIVERY.fromRow(row) : null;
  }

  /** The attempts of these deliveries, in attempt order. */
  async attemptsOf(
    deliveryIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<WebhookAttemptEntity[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await on.rows<Record<AttemptColumn, unknown>>(
      `SELECT ${ATTEMPT.selectList} FROM webhook_attempts
        WHERE delivery_id = ANY($1::uuid[]) ORDER BY attempt_number ASC`,
      [deliveryIds],
    );
    return rows.map((row) => ATTEMPT.fromRow(row));
  }

  /** For a replay: which of these events the tenant's webhook acknowledged, or has on their way. */
  async deliveredEvents(
    tenant: Tenant,
    webhookId: string,
    eventIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<Map<string, DeliveredEvent>> {
    if (eventIds.length === 0) return new Map();
    const rows = await on.rows<{ event_id: string; acknowledged: boolean; pending: boolean }>(
      `SELECT event_id, bool_or(state = 'succeeded') AS acknowledged,
              bool_or(state = 'pending') AS pending
         FROM webhook_deliveries
        WHERE webhook_id = $1 AND event_id = ANY($2::uuid[]) AND state IN ('succeeded', 'pending')
          AND organization_id = $3 AND mode = $4
        GROUP BY event_id`,
      [webhookId, eventIds, tenant.organizationId, tenant.mode],
    );
    return new Map(
      rows.map((row) => [row.event_id, { acknowledged: row.acknowledged, pending: row.pending }]),
    );
  }

  /**
   * Locks the webhook's deliveries, in id order (the deliveries' lock order:
   * DeliveryOutcomes), before it is deleted; returns the events its pending
   * fan-out deliveries leave pending, which stop counting it.
   */
  async lockForDeletion(tx: Transaction, tenant: Tenant, webhookId: string): Promise<string[]> {
    const rows = await tx.rows<{ event_id: string; state: DeliveryState; origin: DeliveryOrigin }>(
      `SELECT event_id, state, origin FROM webhook_deliveries
        WHERE webhook_id = $1 AND organization_id = $2 AND mode = $3 ORDER BY id FOR UPDATE`,
      [webhookId, tenant.organizationId, tenant.mode],
    );
    return rows
      .filter((row) => row.state === 'pending' && row.origin === 'event')
      .map((row) => row.event_id);
  }

  /** Deletes the webhook's deliveries with their attempts. */
  async deleteOfWebhook(tx: Transaction, tenant: Tenant, webhookId: string): Promise<void> {
    await tx.query(
      `WITH gone AS (
         DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND organization_id = $2 AND mode = $3
         RETURNING id
       )
       DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM gone)`,
      [webhookId, tenant.organizationId, tenant.mode],
    );
  }

  /** Deletes the deliveries of these events with their attempts (event retention). */
  async deleteOfEventsAcrossTenants(tx: Transaction, eventIds: readonly string[]): Promise<void> {
    await tx.query(
      `WITH deliveries AS (
         DELETE FROM webhook_deliveries WHERE event_id = ANY($1::uuid[]) RETURNING id
       )
       DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM deliveries)`,
      [eventIds],
    );
  }
}

/** The conditions of a webhook's delivery list: the tenant's first. */
function deliveriesOf(
  tenant: Tenant,
  webhookId: string,
  state: DeliveryState | undefined,
): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(tenant.organizationId)}`);
  where.and(`mode = ${where.param(tenant.mode)}`);
  where.and(`webhook_id = ${where.param(webhookId)}`);
  if (state) where.and(`state = ${where.param(state)}`);
  return where;
}
