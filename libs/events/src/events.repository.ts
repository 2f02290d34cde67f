import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
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
import type { EventEntity } from './event.entity.js';
import { INTERNAL_EVENT_PREFIX } from './internal-events.js';

const EVENT = rowMapping<EventEntity, EventColumn>(
  'events',
  {
    id: 'id',
    organization_id: 'organizationId',
    mode: 'mode',
    type: 'type',
    data: 'data',
    request_id: 'requestId',
    pending_webhooks: 'pendingWebhooks',
    created_at: 'createdAt',
    target_webhook_id: 'targetWebhookId',
    relayed_at: 'relayedAt',
  },
  ['data'],
);

type EventColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'type'
  | 'data'
  | 'request_id'
  | 'pending_webhooks'
  | 'created_at'
  | 'target_webhook_id'
  | 'relayed_at';

type EventRow = Record<EventColumn, unknown>;

/**
 * The condition that keeps internal events (internal-events.ts) out of
 * everything that shows the event log: they only start work.
 */
export function announcedEvent(alias = ''): string {
  const column = alias === '' ? 'type' : `${alias}.type`;
  return `${column} NOT LIKE '${INTERNAL_EVENT_PREFIX}%'`;
}

/** One event to write: its stored id, name and data (JSON). */
export interface EventRecord {
  id: string;
  type: string;
  data: object;
}

export interface EventFilter {
  type?: string | undefined;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
}

/** Which of a tenant's events a webhook replay takes, oldest first. */
export interface ReplayRange {
  /** Every type, or only these. */
  types: readonly string[] | 'all';
  /** The public id of the replayed webhook: its own failure notices are never sent to it. */
  exceptFailuresOf: string;
  from: Date | null;
  to: Date | null;
  /** Only events after this one (a stored id, of the tenant). */
  afterId: string | null;
}

/**
 * The `events` table: the event log and the transactional outbox in one.
 * Rows are written in the transaction of the change they announce; the
 * outbox relay and the webhook deliverer read across tenants, by id or by
 * what is unrelayed.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly sql: Sql) {}

  async insert(
    tx: Transaction,
    tenant: Tenant,
    event: EventRecord,
    requestId: string | null,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO events (id, organization_id, mode, type, data, request_id)
  VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        event.id,
        tenant.organizationId,
        tenant.mode,
        event.type,
        JSON.stringify(event.data),
        requestId,
      ],
    );
  }

  /**
   * Several events in one statement, each in its own tenant, in the order
   * given: `created_at` (clock_timestamp) and the UUIDv7 ids both follow it.
   */
  async insertManyAcrossTenants(
    tx: Transaction,
    events: readonly (EventRecord & { tenant: Tenant })[],
    requestId: string | null,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO events (id, organization_id, mode, type, data, request_id)
  SELECT id, organization_id, mode, type, data, $6
    FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::jsonb[])
      WITH ORDINALITY AS e(id, organization_id, mode, type, data, position)
   ORDER BY position`,
      [
        events.map((event) => event.id),
        events.map((event) => event.tenant.organizationId),
        events.map((event) => event.tenant.mode),
        events.map((event) => event.type),
        events.map((event) => JSON.stringify(event.data)),
        requestId,
      ],
    );
  }

  /**
   * A test delivery's sample event: for `targetWebhookId` only, so it stays
   * out of lists and live updates, and relayed already, so no fan-out sends
   * it to other webhooks.
   */
  async insertTest(
    tx: Transaction,
    tenant: Tenant,
    event: EventRecord,
    targetWebhookId: string,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO events (id, organization_id, mode, type, data, target_webhook_id, relayed_at)
         VALUES ($1, $2, $3, $4, $5, $6, now())`,
      [
        event.id,
        tenant.organizationId,
        tenant.mode,
        event.type,
        JSON.stringify(event.data),
        targetWebhookId,
      ],
    );
  }

  /**
   * The data of the tenant's events since `since` that name `publicId` in
   * `data.<idField>` shrinks to that id, the sequence and `"redacted": true`.
   */
  async redact(
    tx: Transaction,
    tenant: Tenant,
    idField: string,
    publicId: string,
    since: Date,
  ): Promise<void> {
    await tx.query(
      `UPDATE events
          SET data = jsonb_build_object($4::text, data->$4, 'sequence', data->'sequence', 'redacted', true)
        WHERE organization_id = $1 AND mode = $2 AND created_at >= $3 AND data->>$4 = $5`,
      [tenant.organizationId, tenant.mode, since, idField, publicId],
    );
  }

  /** A keyset page of the tenant's event log, newest first; test deliveries' and internal events stay out. */
  page(
    tenant: Tenant,
    filter: EventFilter,
    request: PageRequest,
    on: Queryable = this.sql,
  ): Promise<KeysetPage<EventEntity>> {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param(tenant.organizationId)}`);
    where.and(`mode = ${where.param(tenant.mode)}`);
    where.and('target_webhook_id IS NULL');
    where.and(announcedEvent());
    if (filter.type !== undefined) where.and(`type = ${where.param(filter.type)}`);
    if (filter.createdAfter !== undefined) {
      where.and(`created_at >= ${where.param(filter.createdAfter)}`);
    }
    if (filter.createdBefore !== undefined) {
      where.and(`created_at < ${where.param(filter.createdBefore)}`);
    }
    return keysetPage(
      (text, parameters) => on.rows(text, parameters),
      {
        table: 'events',
        where,
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) =>
          (
            await on.rows<EventRow>(
              `SELECT ${EVENT.selectList} FROM events WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map((row) => EVENT.fromRow(row)),
      },
      request,
    );
  }

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<EventEntity | null> {
    const [row] = await on.rows<EventRow>(
      `SELECT ${EVENT.selectList} FROM events
        WHERE id = $1 AND organization_id = $2 AND mode = $3 LIMIT 1`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? EVENT.fromRow(row) : null;
  }

  /** An event by its stored id, whatever its tenant (the worker's dispatch); null once retention took it. */
  async findAcrossTenants(id: string, on: Queryable = this.sql): Promise<EventEntity | null> {
    const [row] = await on.rows<EventRow>(
      `SELECT ${EVENT.selectList} FROM events WHERE id = $1 LIMIT 1`,
      [id],
    );
    return row ? EVENT.fromRow(row) : null;
  }

  /**
   * The events of these ids that still exist, in no particular order: what
   * the deliveries a worker leased carry, read in one round trip per batch.
   */
  async findManyAcrossTenants(
    ids: readonly string[],
    on: Queryable = this.sql,
  ): Promise<EventEntity[]> {
    if (ids.length === 0) return [];
    const rows = await on.rows<EventRow>(
      `SELECT ${EVENT.selectList} FROM events WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return rows.map((row) => EVENT.fromRow(row));
  }

  /** The types of the tenant's events of these ids (a delivery list names its events' types). */
  async typesOf(
    tenant: Tenant,
    ids: readonly string[],
    on: Queryable = this.sql,
  ): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await on.rows<{ id: string; type: string }>(
      `SELECT id, type FROM events WHERE id = ANY($1::uuid[]) AND organization_id = $2 AND mode = $3`,
      [ids, tenant.organizationId, tenant.mode],
    );
    return new Map(rows.map((row) => [row.id, row.type]));
  }

  /** The ids of the tenant's events a replay takes (never an internal one), oldest first, at most `limit`. */
  async idsForReplay(
    tenant: Tenant,
    range: ReplayRange,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<string[]> {
    const rows = await on.rows<{ id: string }>(
      `SELECT e.id
           FROM events e
          WHERE e.organization_id = $1 AND e.mode = $2 AND e.target_webhook_id IS NULL
            AND ${announcedEvent('e')}
            AND ($3::boolean OR e.type = ANY($4::text[]))
            AND NOT (e.type = 'webhook.failed' AND e.data->>'webhook_id' = $5)
            AND ($6::timestamptz IS NULL OR e.created_at >= $6)
            AND ($7::timestamptz IS NULL OR e.created_at < $7)
            AND ($8::uuid IS NULL
                 OR (e.created_at, e.id) > (SELECT created_at, id FROM events WHERE id = $8))
          ORDER BY e.created_at, e.id
          LIMIT $9`,
      [
        tenant.organizationId,
        tenant.mode,
        range.types === 'all',
        range.types === 'all' ? [] : range.types,
        range.exceptFailuresOf,
        range.from,
        range.to,
        range.afterId,
        limit,
      ],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Up to `limit` events not yet relayed, oldest first, locked until `tx`
   * ends; rows another relay holds are skipped, so several relay at once.
   */
  async claimUnrelayedAcrossTenants(tx: Transaction, limit: number): Promise<EventEntity[]> {
    const rows = await tx.rows<EventRow>(
      `SELECT ${EVENT.selectList} FROM events WHERE relayed_at IS NULL
        ORDER BY created_at ASC, id ASC LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map((row) => EVENT.fromRow(row));
  }

  /** Claimed events relayed, each with the number of webhooks its fan-out left it pending for. */
  async markRelayedAcrossTenants(
    tx: Transaction,
    events: readonly Pick<EventEntity, 'id' | 'pendingWebhooks'>[],
  ): Promise<void> {
    await tx.query(
      `UPDATE events e SET relayed_at = now(), pending_webhooks = r.pending
         FROM unnest($1::uuid[], $2::int[]) AS r(id, pending)
        WHERE e.id = r.id`,
      [events.map((event) => event.id), events.map((event) => event.pendingWebhooks)],
    );
  }

  /**
   * Deliveries settled: each event's `pending_webhooks` drops by its count,
   * the events locked in id order (the lock order of the delivery outcomes,
   * libs/webhooks' DeliveryOutcomes: deliveries, then events, then webhooks).
   * In the same round trip, the events `read` names, as they were before
   * this statement (what the deliveries leased with the outcomes carry).
   */
  async settlePendingWebhooksAcrossTenants(
    tx: Transaction,
    settled: ReadonlyMap<string, number>,
    read: readonly string[],
  ): Promise<EventEntity[]> {
    const rows = await tx.rows<EventRow>(
      `WITH settling AS (
         SELECT * FROM unnest($1::uuid[], $2::int[]) AS s(event_id, settled)
       ), event_locks AS MATERIALIZED (
         SELECT e.id FROM events e WHERE e.id IN (SELECT event_id FROM settling)
          ORDER BY e.id FOR NO KEY UPDATE OF e
       ), settled AS (
         UPDATE events e SET pending_webhooks = greatest(e.pending_webhooks - s.settled, 0)
           FROM settling s JOIN event_locks l ON l.id = s.event_id
          WHERE e.id = s.event_id
       )
       SELECT ${EVENT.selectList} FROM events WHERE id = ANY($3::uuid[])`,
      [[...settled.keys()], [...settled.values()], read],
    );
    return rows.map((row) => EVENT.fromRow(row));
  }

  /**
   * The tenant's events' `pending_webhooks` moved by `change` (never below
   * zero), the events locked in id order as `settlePendingWebhooksAcrossTenants`
   * locks them: a delivery retried (+1), a webhook's pending deliveries gone (-1).
   */
  async adjustPendingWebhooks(
    tx: Transaction,
    tenant: Tenant,
    ids: readonly string[],
    change: 1 | -1,
  ): Promise<void> {
    if (ids.length === 0) return;
    await tx.query(
      `WITH event_locks AS MATERIALIZED (
         SELECT e.id FROM events e
          WHERE e.id = ANY($1::uuid[]) AND e.organization_id = $2 AND e.mode = $3
          ORDER BY e.id FOR NO KEY UPDATE OF e
       )
       UPDATE events e SET pending_webhooks = greatest(e.pending_webhooks + $4, 0)
         FROM event_locks l WHERE e.id = l.id`,
      [ids, tenant.organizationId, tenant.mode, change],
    );
  }

  /** Up to `limit` relayed events older than `days` days, oldest first (event retention). */
  async expiredAcrossTenants(
    days: number,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<string[]> {
    const rows = await on.rows<{ id: string }>(
      `SELECT id FROM events
        WHERE created_at < now() - $1 * interval '1 day' AND relayed_at IS NOT NULL
        ORDER BY created_at LIMIT $2`,
      [days, limit],
    );
    return rows.map((row) => row.id);
  }

  /** Deletes the events of these ids; returns how many were deleted. */
  async deleteAcrossTenants(tx: Transaction, ids: readonly string[]): Promise<number> {
    const { rowCount } = await tx.query('DELETE FROM events WHERE id = ANY($1::uuid[])', [ids]);
    return rowCount ?? 0;
  }
}
