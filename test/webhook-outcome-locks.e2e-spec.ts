import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, parsePublicId, toPublicId } from '#common';
import {
  DeliveryClaims,
  DeliveryOutcomes,
  type ClaimedDelivery,
  type DeliveryResult,
} from '#webhooks';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Writing delivery outcomes from several workers at once (issue 38, item 13):
 * one 40P01 deadlock between two outcome writes left a delivery to lease
 * expiry, and it was sent twice. On the real schema, with deliveries laid out
 * by hand and no worker, many batches are written at once, each touching
 * events and endpoints the others touch too, in different orders.
 */
let stack: Stack;
let dataSource: DataSource;
let client: TestClient;
let org: TestOrganization;
let token: string;

/** Connections enough for every batch to hold one at once. */
const CONCURRENT_BATCHES = 16;

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    env: {
      WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
      DATABASE_POOL_MAX: String(CONCURRENT_BATCHES + 4),
    },
  });
  dataSource = stack.api.get(DataSource);
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
});
afterAll(() => stack?.close());

async function webhook(): Promise<string> {
  return parsePublicId('webhook', await publicWebhook())!;
}

async function publicWebhook(): Promise<string> {
  const created = await client.post('/v1/webhooks', {
    token,
    json: { url: 'https://127.0.0.1:9/hook', events: ['*'] },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.webhook_id as string;
}

/** `count` events, each with a delivery to every one of `webhooks`, as the fan-out leaves them. */
async function fannedOut(webhooks: string[], count: number): Promise<string[]> {
  const events = Array.from({ length: count }, () => newKey('event').uuid);
  await dataSource.query(
    `INSERT INTO events (id, organization_id, mode, type, data, relayed_at, pending_webhooks)
     SELECT id, $2, 'live', 'session.created', '{}', now(), $3 FROM unnest($1::uuid[]) AS id`,
    [events, org.organizationId, webhooks.length],
  );
  await dataSource.query(
    `INSERT INTO webhook_deliveries
       (id, organization_id, mode, webhook_id, event_id, origin, max_attempts, next_attempt_at)
     SELECT gen_random_uuid(), $3, 'live', w, e, 'event', 1, now()
       FROM unnest($1::uuid[]) AS w CROSS JOIN unnest($2::uuid[]) AS e`,
    [webhooks, events, org.organizationId],
  );
  return events;
}

/**
 * The outcome of a delivery's only attempt: every third one failed, the others
 * succeeded. With `changes`, each also changes its webhook as the last attempt
 * of a delivery does: a failure makes it failed and announces `webhook.failed`,
 * a success recovers it (DeliveryOutcomes writes those after the events).
 */
function outcome(delivery: ClaimedDelivery, index: number, changes: boolean): DeliveryResult {
  const failed = index % 3 === 0;
  return {
    delivery,
    state: failed ? 'failed' : 'succeeded',
    attempts: 1,
    delayMs: 0,
    statusCode: failed ? 500 : 200,
    error: failed ? 'the receiver answered 500' : null,
    attempt: {
      startedAt: new Date(),
      outcome: {
        statusCode: failed ? 500 : 200,
        durationMs: 2,
        responseBody: 'ok',
        error: null,
        retryAfter: undefined,
      },
    },
    webhookChange: changes ? (failed ? 'exhausted' : 'recovered') : null,
  };
}

const outcomes = () => stack.api.get(DeliveryOutcomes);
const claimDeliveries = (endpointConcurrency: number, limit: number) =>
  stack.api.get(DeliveryClaims).claim(endpointConcurrency, limit);

/** A deterministic shuffle (a linear congruential generator), so a failure can be replayed. */
function shuffled<T>(items: T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

describe('writing delivery outcomes from many workers at once', () => {
  // Outcomes that change no webhook write deliveries and events (the busy path); those that do
  // also the webhook's updates and the `webhook.failed` events. Batches of mixed events share
  // events and webhooks; batches of whole events share only webhooks.
  it.each([
    { what: 'plain outcomes, mixed events', changes: false, wholeEvents: false },
    { what: 'webhook changes, mixed events', changes: true, wholeEvents: false },
    { what: 'webhook changes, whole events', changes: true, wholeEvents: true },
  ])(
    'never deadlock, and write every attempt and count exactly once: $what',
    async ({ changes, wholeEvents }) => {
      const webhooks = await Promise.all(Array.from({ length: 6 }, () => webhook()));
      const events = await fannedOut(webhooks, 3 * CONCURRENT_BATCHES);
      const claim = await claimDeliveries(1000, 10_000);
      const claimed = claim.deliveries.filter((delivery) => webhooks.includes(delivery.webhookId));
      expect(claimed).toHaveLength(webhooks.length * events.length);

      // Each batch holds its deliveries in an order of its own, as the answers happened to
      // arrive at its worker; the batches are written all at once.
      const ordered = wholeEvents
        ? [...claimed].sort((a, b) => events.indexOf(a.eventId) - events.indexOf(b.eventId))
        : shuffled(claimed, 38);
      const results = ordered.map((delivery, index) => outcome(delivery, index, changes));
      const size = results.length / CONCURRENT_BATCHES;
      const batches = Array.from({ length: CONCURRENT_BATCHES }, (_, i) =>
        shuffled(results.slice(i * size, (i + 1) * size), i + 1),
      );
      const written = await Promise.allSettled(
        batches.map((batch) => outcomes().write(batch, true)),
      );
      const errors = written.flatMap((result) =>
        result.status === 'rejected' ? [String(result.reason)] : [],
      );
      expect(errors).toEqual([]);

      const [counts] = await dataSource.query(
        `SELECT
         (SELECT count(*)::int FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
           WHERE d.webhook_id = ANY($1::uuid[])) AS attempts,
         (SELECT count(*)::int FROM webhook_deliveries
           WHERE webhook_id = ANY($1::uuid[]) AND state = 'pending') AS pending,
         (SELECT count(*)::int FROM webhook_deliveries
           WHERE webhook_id = ANY($1::uuid[]) AND state = 'failed' AND attempts = 1) AS failed,
         (SELECT coalesce(sum(pending_webhooks), 0)::int FROM events WHERE id = ANY($2::uuid[]))
           AS pending_webhooks,
         (SELECT count(*)::int FROM events
           WHERE type = 'webhook.failed' AND data->>'webhook_id' = ANY($3::text[])) AS announced,
         (SELECT sum(event_sequence)::int FROM webhooks WHERE id = ANY($1::uuid[])) AS sequences`,
        [webhooks, events, webhooks.map((id) => toPublicId('webhook', id))],
      );
      const failed = results.filter((result) => result.state === 'failed').length;
      expect(counts).toEqual({
        attempts: results.length,
        pending: 0,
        failed,
        pending_webhooks: 0,
        announced: changes ? failed : 0,
        sequences: changes ? failed : 0,
      });
    },
  );
});

/** Statements of this test's database waiting for a row lock, once there are `count`. */
function lockWaiters(count: number) {
  return waitFor(async () => {
    const [{ waiting }] = await dataSource.query(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return waiting >= count ? true : null;
  });
}

/** A transaction holding a lock on one row until it commits: where the others are made to wait. */
async function holding(sql: string, id: string) {
  const runner = dataSource.createQueryRunner();
  await runner.startTransaction();
  await runner.query(sql, [id]);
  return {
    async release() {
      await runner.commitTransaction();
      await runner.release();
    },
  };
}

/** Deliveries of one new event each to `webhookId`, due now, in ascending id order. */
async function deliveriesTo(webhookId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (const eventId of await fannedOut([webhookId], count)) {
    const [{ id }] = await dataSource.query(
      `SELECT id FROM webhook_deliveries WHERE event_id = $1`,
      [eventId],
    );
    ids.push(id as string);
  }
  return ids.sort();
}

function succeeded(delivery: ClaimedDelivery): DeliveryResult {
  return { ...outcome(delivery, 1, false), delivery };
}

describe('the other writers of those rows take them in the same order', () => {
  it('deletes a webhook while an outcome of its is being written', async () => {
    const [doomedPublic, other] = [await publicWebhook(), await webhook()];
    const doomed = parsePublicId('webhook', doomedPublic)!;
    const [kept] = await deliveriesTo(other, 1);
    const [gone] = await deliveriesTo(doomed, 1);
    const claimed = (await claimDeliveries(1000, 10_000)).deliveries.filter(
      (delivery) => delivery.id === kept || delivery.id === gone,
    );
    expect(claimed).toHaveLength(2);
    const eventOf = (id: string) => claimed.find((delivery) => delivery.id === id)!.eventId;
    // The write locks the events in id order: it is held up at the first one, holding both
    // deliveries, while the delete starts; the doomed webhook's event is the second one.
    const [first, second] = [eventOf(kept), eventOf(gone)].sort();
    const blocker = await holding(`SELECT id FROM events WHERE id = $1 FOR UPDATE`, first!);
    const write = outcomes().write(claimed.map(succeeded));
    await lockWaiters(1);
    const deleted = client.delete(`/v1/webhooks/${doomedPublic}`, { token });
    await lockWaiters(2);
    await blocker.release();

    const [written, answer] = await Promise.allSettled([write, deleted]);
    expect(written.status === 'rejected' ? String(written.reason) : 'written').toBe('written');
    expect(answer.status === 'fulfilled' ? answer.value.status : String(answer.reason)).toBe(204);
    const pending: { pending_webhooks: number }[] = await dataSource.query(
      `SELECT pending_webhooks FROM events WHERE id = ANY($1::uuid[])`,
      [[first, second]],
    );
    expect(pending).toEqual([{ pending_webhooks: 0 }, { pending_webhooks: 0 }]);
    const left: { id: string; state: string }[] = await dataSource.query(
      `SELECT id, state FROM webhook_deliveries WHERE id = ANY($1::uuid[])`,
      [[kept, gone]],
    );
    expect(left).toEqual([{ id: kept, state: 'succeeded' }]);
  });

  it('claims deliveries whose leases ran out while their outcomes are being written', async () => {
    const hook = await webhook();
    const [low, middle, high] = await deliveriesTo(hook, 3);
    // The worker that had the lowest and the highest is late writing their outcomes: their
    // leases ran out, and a claim takes them again (with the middle one, never leased).
    const late = (await claimDeliveries(1000, 10_000)).deliveries.filter(
      (delivery) => delivery.id === low || delivery.id === high,
    );
    expect(late).toHaveLength(2);
    await dataSource.query(
      `UPDATE webhook_deliveries
          SET lease_until = CASE WHEN id = $2 THEN NULL ELSE now() - interval '1 minute' END,
              next_attempt_at = now() - CASE WHEN id = $3 THEN interval '3 minutes'
                                             WHEN id = $2 THEN interval '2 minutes'
                                             ELSE interval '1 minute' END
        WHERE id = ANY($1::uuid[])`,
      [[low, middle, high], middle, high],
    );
    const blocker = await holding(
      `SELECT id FROM webhook_deliveries WHERE id = $1 FOR UPDATE`,
      middle!,
    );
    const claim = claimDeliveries(1000, 10_000);
    await lockWaiters(1);
    const write = outcomes().write(late.map(succeeded));
    await lockWaiters(2);
    await blocker.release();

    const [claimed, written] = await Promise.allSettled([claim, write]);
    expect(claimed.status === 'rejected' ? String(claimed.reason) : 'claimed').toBe('claimed');
    expect(written.status === 'rejected' ? String(written.reason) : 'written').toBe('written');
    const [{ attempts }] = await dataSource.query(
      `SELECT count(*)::int AS attempts FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[])`,
      [[low, high]],
    );
    expect(attempts).toBe(2);
  });
});
