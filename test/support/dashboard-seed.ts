import { newKey, type Mode } from '#common';
import type { Sql } from '#database';

// Figures of the past for the analytics dashboard, written as the service leaves them: work
// moved back in time, and webhook deliveries in given hours of the last day.

/** A delivery to seed: created `hoursAgo` hours before now, in its state now. */
export interface SeedDelivery {
  hoursAgo: number;
  state: 'succeeded' | 'failed' | 'pending';
}

/**
 * Events and one delivery of each to the webhook (its uuid), as the fan-out
 * and the sender leave them: finished ones completed, pending ones due only
 * tomorrow, so no worker sends them during the test.
 */
export async function seedDeliveries(
  sql: Sql,
  organizationId: string,
  webhookId: string,
  deliveries: readonly SeedDelivery[],
  mode: Mode = 'live',
): Promise<void> {
  for (const delivery of deliveries) {
    const event = newKey('event').uuid;
    const created = new Date(Date.now() - delivery.hoursAgo * 3_600_000);
    await sql.rows(
      `INSERT INTO events (id, organization_id, mode, type, data, relayed_at, created_at)
       VALUES ($1, $2, $3, 'session.completed', '{}', $4, $4)`,
      [event, organizationId, mode, created],
    );
    const finished = delivery.state !== 'pending';
    await sql.rows(
      `INSERT INTO webhook_deliveries
         (id, organization_id, mode, webhook_id, event_id, origin, state, attempts, max_attempts,
          next_attempt_at, completed_at, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, 'event', $5, 1, 7,
               CASE WHEN $6 THEN NULL ELSE now() + interval '1 day' END,
               CASE WHEN $6 THEN $7::timestamptz END, $7)`,
      [organizationId, mode, webhookId, event, delivery.state, finished, created],
    );
  }
}

/** Moves a piece of work (by its table and uuid) `daysAgo` days back, as if created then. */
export async function backdateWork(
  sql: Sql,
  table: 'sessions' | 'analyses' | 'dowsing_queries',
  id: string,
  daysAgo: number,
): Promise<void> {
  await sql.rows(
    `UPDATE ${table} SET created_at = created_at - $2 * interval '1 day' WHERE id = $1`,
    [id, daysAgo],
  );
}
