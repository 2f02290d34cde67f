import { Injectable } from '@nestjs/common';
import { newUuid, type Mode } from '#common';
import { Sql, type Transaction } from '#database';
import type { DeliveryOrigin, DeliveryState } from './entities/webhook-delivery.entity.js';
import type { EnvelopeFormat, WebhookStatus } from './entities/webhook.entity.js';

/** How long a worker holds a delivery it is sending; a crashed worker's deliveries are picked up after it. */
export const LEASE_SECONDS = 15;
/** Due deliveries looked at per claim, so one busy endpoint's backlog does not hide the others'. */
const CLAIM_WINDOW = 1000;

/** What sending a delivery needs of its webhook, read with the lease. */
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

/** A delivery this worker leased, with its webhook (its event is the events lib's to read). */
export interface LeasedDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  origin: DeliveryOrigin;
  /** Attempts made before this one. */
  attempts: number;
  maxAttempts: number;
  /** When this worker leased it (its own clock): how much of the lease is left. */
  leasedAt: Date;
  /** Null when deleted since the delivery was created. */
  webhook: ClaimedWebhook | null;
}

/** Due deliveries leased by one claim, and what was left. */
export interface Lease {
  deliveries: LeasedDelivery[];
  /** Due deliveries seen by the claim (what it looked at, up to its window). */
  due: number;
  /** When the next delivery not due yet will be, or null when none is scheduled. */
  nextDue: Date | null;
}

/** One attempt's outcome (or a cancellation's) as `writeOutcomesAcrossTenants` writes it. */
export interface DeliveryOutcome {
  deliveryId: string;
  /** Attempts made, this one included. */
  attempts: number;
  state: DeliveryState;
  statusCode: number | null;
  error: string | null;
  /** Until the next attempt, when `state` is pending. */
  delayMs: number;
  /** The attempt's record; null for a cancellation. */
  attempt: {
    startedAt: Date;
    durationMs: number;
    statusCode: number | null;
    responseBody: string | null;
    error: string | null;
  } | null;
}

/** What writing outcomes did besides: the deliveries leased in the freed slots, the fan-out deliveries settled per event. */
export interface WrittenOutcomes {
  handedOver: LeasedDelivery[];
  /** Event id → how many of its fan-out deliveries these outcomes finished. */
  settled: Map<string, number>;
}

/**
 * What sending a leased delivery needs, read with the lease: the columns of
 * `c` (the leased delivery, as RETURNING gives it) and `w` (its webhook).
 */
const DELIVERY_COLUMNS = `c.id, c.webhook_id, c.event_id, c.origin, c.attempts, c.max_attempts,
       w.id AS w_id, w.organization_id AS w_organization_id, w.mode AS w_mode, w.url AS w_url,
       w.active AS w_active, w.status AS w_status, w.envelope_format AS w_envelope_format,
       w.secret_sealed AS w_secret_sealed, w.previous_secret_sealed AS w_previous_secret_sealed,
       w.previous_secret_expires_at AS w_previous_secret_expires_at`;

/**
 * The `w` of DELIVERY_COLUMNS for each leased `c`: a primary-key lookup
 * each. As a plain join the planner, expecting many leased rows, hashed the
 * whole table on every claim and every outcome write.
 */
const WEBHOOK_JOIN = `LEFT JOIN LATERAL (SELECT * FROM webhooks WHERE id = c.webhook_id LIMIT 1) w ON true`;

/** What a leasing UPDATE returns, to be read as DELIVERY_COLUMNS' `c`. */
const LEASED_RETURNING =
  'd.id, d.webhook_id, d.event_id, d.origin, d.attempts, d.max_attempts, d.next_attempt_at';

/**
 * Leases due deliveries, at most `endpointConcurrency` in flight per endpoint
 * (counting every worker's leases) and one at a time per replay, at most
 * `limit` of them, and returns each with its webhook. Its first row (there
 * is always one) also says how many were due and when the next one not yet
 * due will be.
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
  -- In id order, as every writer of deliveries locks them (the outcomes' write): in the
  -- update's own order, a claim re-leasing two expired leases could hold one and wait for the
  -- other while the outcome write of the worker that had them held the other and waited.
  SELECT d.id FROM webhook_deliveries d WHERE d.id IN (SELECT id FROM picked)
   ORDER BY d.id FOR NO KEY UPDATE
), claimed AS (
  UPDATE webhook_deliveries d
     SET lease_until = now() + interval '${LEASE_SECONDS} seconds'
    FROM locks l
   -- Checked again on the row as it is now: an outcome's handover takes no lock and may have
   -- leased it since this statement's snapshot.
   WHERE d.id = l.id AND d.state = 'pending'
     AND (d.lease_until IS NULL OR d.lease_until < now())
  RETURNING ${LEASED_RETURNING}
)
SELECT m.due_count, m.next_due, ${DELIVERY_COLUMNS}
  FROM (SELECT (SELECT count(*) FROM due)::int AS due_count,
               (SELECT min(next_attempt_at) FROM webhook_deliveries
                 WHERE state = 'pending' AND next_attempt_at > now()) AS next_due) m
  LEFT JOIN claimed c ON true
  ${WEBHOOK_JOIN}
 ORDER BY c.next_attempt_at, c.id`;

/** The advisory lock that serialises claims. */
const CLAIM_LOCK = `SELECT pg_advisory_xact_lock(hashtext('webhook-delivery-claim'))`;

/** One row of DELIVERY_COLUMNS. */
interface LeasedRow {
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
}

interface ClaimRow extends LeasedRow {
  due_count: number;
  next_due: Date | null;
}

interface OutcomesRow extends LeasedRow {
  settled_events: string[] | null;
  settled_counts: number[] | null;
}

/**
 * The deliverer's side of `webhook_deliveries` (and `webhook_attempts`):
 * leasing due deliveries of every tenant, and writing attempts' outcomes,
 * which hands the freed slots over. The creation and lists of deliveries are
 * WebhookDeliveriesRepository's.
 */
@Injectable()
export class DeliveryLeasesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Leases up to `limit` due deliveries with their webhooks, in one round
   * trip: the claim lock and the claim go as one simple-protocol query (its
   * two statements are one transaction, so the lock is held until the claim
   * commits; the claim's statement takes its snapshot after the lock, so it
   * sees every lease committed before). So the per-endpoint cap holds across
   * every worker; an outcome's handover, which takes no lock, swaps one of an
   * endpoint's leases for another in one commit, so the count a claim sees is
   * right either side of it. Its own unit of work, not a caller's: the lock
   * must end with the claim. The two numbers are written into the text,
   * which a query without parameters needs; both are checked integers.
   */
  async claimDueAcrossTenants(endpointConcurrency: number, limit: number): Promise<Lease> {
    if (!Number.isSafeInteger(endpointConcurrency) || !Number.isSafeInteger(limit)) {
      throw new Error(`claim: not integers (${endpointConcurrency}, ${limit})`);
    }
    const [, claim] = await this.sql.connection((connection) =>
      connection.statements<ClaimRow>(
        `${CLAIM_LOCK}; ${claimStatement(endpointConcurrency, limit)}`,
      ),
    );
    const rows = claim!.rows;
    const [meta] = rows;
    return {
      deliveries: leasedDeliveries(rows),
      due: meta?.due_count ?? 0,
      nextDue: meta?.next_due ?? null,
    };
  }

  /**
   * Writes outcomes in one statement: the attempts, the deliveries' states
   * and next attempts, and, for each outcome of `handOver`, the lease of the
   * same endpoint's next due delivery (none of a replay's, which go one at a
   * time through the claim) in the slot it frees. Deliveries are locked in
   * id order first (the deliveries' lock order, DeliveryOutcomes); the
   * handover's are taken after them with SKIP LOCKED, so it never waits
   * while holding them. An outcome of a delivery deleted meanwhile (with its
   * webhook) is dropped.
   */
  async writeOutcomesAcrossTenants(
    tx: Transaction,
    outcomes: readonly DeliveryOutcome[],
    handOver: readonly string[],
  ): Promise<WrittenOutcomes> {
    const attempts = outcomes.filter((outcome) => outcome.attempt !== null);
    // Data-modifying CTEs run whatever the final SELECT reads. Every CTE sees the snapshot from
    // before the statement, so the handover skips the deliveries it writes by id, not by their
    // new lease. `outcomes` updates only rows `delivery_locks` locked in id order (MATERIALIZED:
    // a locking CTE is never inlined, but the order must not rest on that); the slots are
    // counted from the outcomes, so the handover starts after them.
    const rows = await tx.rows<OutcomesRow>(
      `WITH delivery_locks AS MATERIALIZED (
         SELECT id FROM webhook_deliveries WHERE id = ANY($9::uuid[])
          ORDER BY id FOR NO KEY UPDATE
       ), attempts AS (
         INSERT INTO webhook_attempts
           (id, delivery_id, attempt_number, started_at, duration_ms, status_code, response_body, error)
         SELECT a.* FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::int[],
                                $6::int[], $7::text[], $8::text[])
                  AS a(id, delivery_id, attempt_number, started_at, duration_ms, status_code,
                       response_body, error)
          -- Of deliveries that still exist (a webhook deleted meanwhile took its own).
          WHERE a.delivery_id IN (SELECT id FROM delivery_locks)
       ), outcomes AS (
         UPDATE webhook_deliveries d
            SET attempts = u.attempts, state = u.state, last_status_code = u.status_code,
                last_error = u.error, lease_until = NULL,
                next_attempt_at = CASE WHEN u.state = 'pending'
                                       THEN now() + u.delay_ms * interval '1 millisecond' END,
                completed_at = CASE WHEN u.state = 'pending' THEN NULL ELSE now() END
           FROM unnest($9::uuid[], $10::int[], $11::text[], $12::int[], $13::text[], $14::int[])
             AS u(id, attempts, state, status_code, error, delay_ms)
           JOIN delivery_locks l ON l.id = u.id
          WHERE d.id = u.id
         RETURNING d.id, d.webhook_id, d.event_id, d.origin, d.state
       ), settling AS (
         SELECT event_id, count(*)::int AS settled FROM outcomes
          WHERE state <> 'pending' AND origin = 'event' GROUP BY event_id
       ), slots AS (
         SELECT webhook_id, count(*)::int AS free FROM outcomes WHERE id = ANY($15::uuid[])
          GROUP BY webhook_id
       ), handed AS (
         UPDATE webhook_deliveries d
            SET lease_until = now() + interval '${LEASE_SECONDS} seconds'
           FROM (SELECT next.id FROM slots CROSS JOIN LATERAL (
                   SELECT x.id FROM webhook_deliveries x
                    WHERE x.webhook_id = slots.webhook_id AND x.state = 'pending'
                      AND x.next_attempt_at <= now()
                      AND (x.lease_until IS NULL OR x.lease_until < now())
                      AND x.replay_id IS NULL AND x.id <> ALL($9::uuid[])
                    ORDER BY x.next_attempt_at, x.id
                    LIMIT slots.free
                    FOR UPDATE SKIP LOCKED
                 ) next) picked
          WHERE d.id = picked.id
         RETURNING ${LEASED_RETURNING}
       )
       SELECT s.settled_events, s.settled_counts, ${DELIVERY_COLUMNS}
         FROM (SELECT array_agg(event_id ORDER BY event_id) AS settled_events,
                      array_agg(settled ORDER BY event_id) AS settled_counts
                 FROM settling) s
         LEFT JOIN handed c ON true
         ${WEBHOOK_JOIN}
        ORDER BY c.next_attempt_at, c.id`,
      [
        attempts.map(() => newUuid()),
        attempts.map((outcome) => outcome.deliveryId),
        attempts.map((outcome) => outcome.attempts),
        attempts.map((outcome) => outcome.attempt!.startedAt.toISOString()),
        attempts.map((outcome) => outcome.attempt!.durationMs),
        attempts.map((outcome) => outcome.attempt!.statusCode),
        attempts.map((outcome) => outcome.attempt!.responseBody),
        attempts.map((outcome) => outcome.attempt!.error),
        outcomes.map((outcome) => outcome.deliveryId),
        outcomes.map((outcome) => outcome.attempts),
        outcomes.map((outcome) => outcome.state),
        outcomes.map((outcome) => outcome.statusCode),
        outcomes.map((outcome) => outcome.error),
        outcomes.map((outcome) => outcome.delayMs),
        handOver,
      ],
    );
    const [first] = rows;
    const events = first?.settled_events ?? [];
    const counts = first?.settled_counts ?? [];
    return {
      handedOver: leasedDeliveries(rows),
      settled: new Map(events.map((eventId, i) => [eventId, counts[i]!])),
    };
  }
}

/** The deliveries of DELIVERY_COLUMNS rows, one webhook object per endpoint shared by its deliveries. */
function leasedDeliveries(rows: LeasedRow[]): LeasedDelivery[] {
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
    }));
}

function webhookOf(row: LeasedRow, webhooks: Map<string, ClaimedWebhook>): ClaimedWebhook {
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
