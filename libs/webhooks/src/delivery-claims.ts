import type { PoolClient, QueryResult } from 'pg';
import type { DataSource } from 'typeorm';
import type { Mode } from '#common';
import { EventEntity } from '#events';
import type { DeliveryOrigin } from './entities/webhook-delivery.entity.js';
import type { EnvelopeFormat, WebhookStatus } from './entities/webhook.entity.js';

/** How long a worker holds a delivery it is sending; a crashed worker's deliveries are picked up after it. */
export const LEASE_SECONDS = 15;
/** Due deliveries looked at per claim, so one busy endpoint's backlog does not hide the others'. */
const CLAIM_WINDOW = 1000;

/** What sending a delivery needs of its webhook, read with the claim. */
export interface ClaimedWebhook {
  id: string;
  organizationId: string;
  mode: Mode;
  url: string;
  active: boolean;
  status: WebhookStatus;
  envelopeFormat: EnvelopeFormat;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  origin: DeliveryOrigin;
  /** Attempts made before this one. */
  attempts: number;
  maxAttempts: number;
  /** When this worker leased it (its own clock): how much of the lease is left. */
  leasedAt: Date;
  /** Null when deleted since the delivery was created (and the event, by retention). */
  webhook: ClaimedWebhook | null;
  event: EventEntity | null;
}

/**
 * What sending a leased delivery needs, read with the lease: the columns of
 * `c` (the leased delivery, as RETURNING gives it), `w` (its webhook) and `e`
 * (its event), in the shape `claimedDeliveries` reads.
 */
export const DELIVERY_COLUMNS = `c.id, c.webhook_id, c.event_id, c.origin, c.attempts, c.max_attempts,
       w.id AS w_id, w.organization_id AS w_organization_id, w.mode AS w_mode, w.url AS w_url,
       w.active AS w_active, w.status AS w_status, w.envelope_format AS w_envelope_format,
       w.secret_sealed AS w_secret_sealed, w.previous_secret_sealed AS w_previous_secret_sealed,
       w.previous_secret_expires_at AS w_previous_secret_expires_at,
       e.id AS e_id, e.organization_id AS e_organization_id, e.mode AS e_mode, e.type AS e_type,
       e.data AS e_data, e.request_id AS e_request_id, e.pending_webhooks AS e_pending_webhooks,
       e.created_at AS e_created_at, e.target_webhook_id AS e_target_webhook_id,
       e.relayed_at AS e_relayed_at`;

/**
 * The `w` and `e` of DELIVERY_COLUMNS for each leased `c`: a primary-key
 * lookup each. As plain joins the planner, expecting many leased rows, hashed
 * the whole events table on every claim and every outcome write.
 */
export const DELIVERY_JOINS = `LEFT JOIN LATERAL (SELECT * FROM webhooks WHERE id = c.webhook_id LIMIT 1) w ON true
  LEFT JOIN LATERAL (SELECT * FROM events WHERE id = c.event_id LIMIT 1) e ON true`;

/** What a leasing UPDATE returns, to be read as DELIVERY_COLUMNS' `c`. */
export const LEASED_RETURNING =
  'd.id, d.webhook_id, d.event_id, d.origin, d.attempts, d.max_attempts, d.next_attempt_at';

/**
 * Leases due deliveries, at most `endpointConcurrency` in flight per endpoint
 * (counting every worker's leases) and one at a time per replay, at most
 * `limit` of them, and
 * returns each with its webhook and event: one statement, one round trip. Its
 * first row (there is always one) also says how many were due and when the
 * next one not yet due will be.
 */
const claimStatement = (endpointConcurrency: number, limit: number) => `
WITH due AS (
  SELECT id, webhook_id, replay_id, next_attempt_at FROM webhook_deliveries
   WHERE state = 'pending' AND next_attempt_at <= now()
     AND (lease_until IS NULL OR lease_until < now())
   ORDER BY next_attempt_at, id
   LIMIT ${CLAIM_WINDOW}
), ranked AS (
  SELECT due.*,
         row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at, id) AS webhook_rank,
         row_number() OVER (PARTITION BY replay_id ORDER BY next_attempt_at, id) AS replay_rank
    FROM due
), busy AS (
  SELECT webhook_id, count(*) AS in_flight, array_agg(replay_id) AS replays
    FROM webhook_deliveries
   WHERE state = 'pending' AND lease_until >= now()
   GROUP BY webhook_id
), picked AS (
  SELECT r.id FROM ranked r LEFT JOIN busy b USING (webhook_id)
   WHERE r.webhook_rank + coalesce(b.in_flight, 0) <= ${endpointConcurrency}
     AND (r.replay_id IS NULL
          OR (r.replay_rank = 1 AND NOT coalesce(r.replay_id = ANY(b.replays), false)))
   ORDER BY r.next_attempt_at, r.id
   LIMIT ${limit}
), locks AS MATERIALIZED (
  -- In id order, as every writer of deliveries locks them (AttemptRecords.write): in the
  -- update's own order, a claim re-leasing two expired leases could hold one and wait for the
  -- other while the outcome write of the worker that had them held the other and waited.
  SELECT d.id FROM webhook_deliveries d WHERE d.id IN (SELECT id FROM picked)
   ORDER BY d.id FOR NO KEY UPDATE
), claimed AS (
  UPDATE webhook_deliveries d
     SET lease_until = now() + interval '${LEASE_SECONDS} seconds'
    FROM locks l
   -- Checked again on the row as it is now: an outcome's handover (AttemptRecords) takes no
   -- lock and may have leased it since this statement's snapshot.
   WHERE d.id = l.id AND d.state = 'pending'
     AND (d.lease_until IS NULL OR d.lease_until < now())
  RETURNING ${LEASED_RETURNING}
)
SELECT m.due_count, m.next_due, ${DELIVERY_COLUMNS}
  FROM (SELECT (SELECT count(*) FROM due)::int AS due_count,
               (SELECT min(next_attempt_at) FROM webhook_deliveries
                 WHERE state = 'pending' AND next_attempt_at > now()) AS next_due) m
  LEFT JOIN claimed c ON true
  ${DELIVERY_JOINS}
 ORDER BY c.next_attempt_at, c.id`;

/** One row of DELIVERY_COLUMNS. */
export interface DeliveryRow {
  id: string | null;
  webhook_id: string;
  event_id: string;
  origin: DeliveryOrigin;
  attempts: number;
  max_attempts: number;
  w_id: string | null;
  w_organization_id: string;
  w_mode: Mode;
  w_url: string;
  w_active: boolean;
  w_status: WebhookStatus;
  w_envelope_format: EnvelopeFormat;
  w_secret_sealed: string;
  w_previous_secret_sealed: string | null;
  w_previous_secret_expires_at: Date | null;
  e_id: string | null;
  e_organization_id: string;
  e_mode: Mode;
  e_type: string;
  e_data: Record<string, unknown>;
  e_request_id: string | null;
  e_pending_webhooks: number;
  e_created_at: Date;
  e_target_webhook_id: string | null;
  e_relayed_at: Date | null;
}

interface ClaimRow extends DeliveryRow {
  due_count: number;
  next_due: Date | null;
}

export interface Claim {
  deliveries: ClaimedDelivery[];
  /** Due deliveries left unclaimed (over the capacity, an endpoint's cap, a replay's order). */
  heldBack: boolean;
  /** When the next delivery not due yet will be, or null when none is scheduled. */
  nextDue: Date | null;
}

/** The advisory lock that serialises claims. */
const CLAIM_LOCK = `SELECT pg_advisory_xact_lock(hashtext('webhook-delivery-claim'))`;

/**
 * Leases up to `limit` due deliveries with what sending them needs, in one
 * round trip: the claim lock and the claim go as one simple-protocol query
 * (its two statements are one transaction, so the lock is held until the
 * claim commits; the claim's statement takes its snapshot after the lock, so
 * it sees every lease committed before). So the per-endpoint cap holds across
 * every worker; an outcome's handover, which takes no lock, swaps one of an
 * endpoint's leases for another in one commit, so the count a claim sees is
 * right either side of it. The two numbers are written into the text, which a query
 * without parameters needs; both are checked integers.
 */
export async function claimDeliveries(
  dataSource: DataSource,
  endpointConcurrency: number,
  limit: number,
): Promise<Claim> {
  if (!Number.isSafeInteger(endpointConcurrency) || !Number.isSafeInteger(limit)) {
    throw new Error(`claim: not integers (${endpointConcurrency}, ${limit})`);
  }
  const runner = dataSource.createQueryRunner('master');
  let rows: ClaimRow[];
  try {
    const client = (await runner.connect()) as PoolClient;
    const results = (await client.query(
      `${CLAIM_LOCK}; ${claimStatement(endpointConcurrency, limit)}`,
    )) as unknown as QueryResult<ClaimRow>[];
    rows = results[1]!.rows;
  } finally {
    await runner.release();
  }
  const deliveries = claimedDeliveries(rows);
  const [meta] = rows;
  return {
    deliveries,
    heldBack: (meta?.due_count ?? 0) > deliveries.length,
    nextDue: meta?.next_due ?? null,
  };
}

/** The deliveries of DELIVERY_COLUMNS rows, one webhook object per endpoint shared by its deliveries. */
export function claimedDeliveries(rows: DeliveryRow[]): ClaimedDelivery[] {
  const webhooks = new Map<string, ClaimedWebhook>();
  const leasedAt = new Date();
  return rows
    .filter((row) => row.id !== null)
    .map((row) => ({
      id: row.id!,
      webhookId: row.webhook_id,
      eventId: row.event_id,
      origin: row.origin,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      leasedAt,
      webhook: row.w_id === null ? null : webhookOf(row, webhooks),
      event: row.e_id === null ? null : eventOf(row),
    }));
}

function webhookOf(row: DeliveryRow, webhooks: Map<string, ClaimedWebhook>): ClaimedWebhook {
  let webhook = webhooks.get(row.webhook_id);
  if (!webhook) {
    webhook = {
      id: row.webhook_id,
      organizationId: row.w_organization_id,
      mode: row.w_mode,
      url: row.w_url,
      active: row.w_active,
      status: row.w_status,
      envelopeFormat: row.w_envelope_format,
      secretSealed: row.w_secret_sealed,
      previousSecretSealed: row.w_previous_secret_sealed,
      previousSecretExpiresAt: row.w_previous_secret_expires_at,
    };
    webhooks.set(row.webhook_id, webhook);
  }
  return webhook;
}

function eventOf(row: DeliveryRow): EventEntity {
  return Object.assign(new EventEntity(), {
    id: row.event_id,
    organizationId: row.e_organization_id,
    mode: row.e_mode,
    type: row.e_type,
    data: row.e_data,
    requestId: row.e_request_id,
    pendingWebhooks: row.e_pending_webhooks,
    createdAt: row.e_created_at,
    targetWebhookId: row.e_target_webhook_id,
    relayedAt: row.e_relayed_at,
  });
}
