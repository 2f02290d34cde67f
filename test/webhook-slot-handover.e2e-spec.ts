import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, parsePublicId } from '#common';
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
 * Writing an attempt's outcome hands its endpoint slot to that endpoint's next
 * due delivery in the same statement (DeliveryOutcomes): on the real schema, with
 * deliveries laid out by hand and no worker, so nothing else claims them.
 */
let stack: Stack;
let dataSource: DataSource;
let client: TestClient;
let org: TestOrganization;
let token: string;
const CAP = 2;

beforeAll(async () => {
  stack = await startStack({ worker: false, env: { WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  dataSource = stack.api.get(DataSource);
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
});
afterAll(() => stack?.close());

async function webhook(): Promise<string> {
  const created = await client.post('/v1/webhooks', {
    token,
    json: { url: 'https://127.0.0.1:9/hook', events: ['*'] },
  });
  expect(created.status, created.text).toBe(201);
  return parsePublicId('webhook', created.body.webhook_id)!;
}

/** Deliveries made so far: each is due a millisecond after the one before, whatever its endpoint. */
let made = 0;

/** Deliveries of `count` new events to `webhookId`, due in the order they are made. */
async function deliveries(
  webhookId: string,
  count: number,
  options: { replay?: boolean } = {},
): Promise<string[]> {
  const ids: string[] = [];
  const replayId = options.replay ? newKey('webhookDelivery').uuid : null;
  for (let i = 0; i < count; i++) {
    const eventId = newKey('event').uuid;
    const id = newKey('webhookDelivery').uuid;
    await dataSource.query(
      `INSERT INTO events (id, organization_id, mode, type, data, relayed_at)
       VALUES ($1, $2, 'live', 'session.created', '{}', now())`,
      [eventId, org.organizationId],
    );
    await dataSource.query(
      `INSERT INTO webhook_deliveries
         (id, organization_id, mode, webhook_id, event_id, origin, max_attempts, next_attempt_at, replay_id)
       VALUES ($1, $2, 'live', $3, $4, $5, 7,
               '2026-01-01T00:00:00Z'::timestamptz + $6 * interval '1 millisecond', $7)`,
      [id, org.organizationId, webhookId, eventId, replayId ? 'replay' : 'event', made++, replayId],
    );
    ids.push(id);
  }
  return ids;
}

async function leased(webhookId: string): Promise<string[]> {
  const rows: { id: string }[] = await dataSource.query(
    `SELECT id FROM webhook_deliveries
      WHERE webhook_id = $1 AND state = 'pending' AND lease_until > now() ORDER BY next_attempt_at`,
    [webhookId],
  );
  return rows.map((row) => row.id);
}

function succeeded(delivery: ClaimedDelivery): DeliveryResult {
  return {
    delivery,
    state: 'succeeded',
    attempts: 1,
    delayMs: 0,
    statusCode: 200,
    error: null,
    attempt: {
      startedAt: new Date(),
      outcome: {
        statusCode: 200,
        durationMs: 2,
        responseBody: 'ok',
        error: null,
        retryAfter: undefined,
      },
    },
    webhookChange: null,
  };
}

const outcomes = () => stack.api.get(DeliveryOutcomes);
const claimDeliveries = (endpointConcurrency: number, limit: number) =>
  stack.api.get(DeliveryClaims).claim(endpointConcurrency, limit);

describe('handing a freed endpoint slot over', () => {
  it("leases the endpoint's next due deliveries in order as outcomes are written, never more than it freed", async () => {
    const [a, b] = [await webhook(), await webhook()];
    const ofA = await deliveries(a, 6);
    const ofB = await deliveries(b, 3);
    const replayOfA = await deliveries(a, 2, { replay: true });
    const claim = await claimDeliveries(CAP, 100);
    const claimedOfA = claim.deliveries.filter((delivery) => delivery.webhookId === a);
    expect(claimedOfA.map((delivery) => delivery.id)).toEqual(ofA.slice(0, CAP));

    // A's first ended: its slot goes to A's next due delivery, not to B's nor to A's replay.
    const first = await outcomes().write([succeeded(claimedOfA[0]!)], true);
    expect(first.map((delivery) => delivery.id)).toEqual([ofA[2]]);
    expect(first[0]).toMatchObject({
      webhookId: a,
      attempts: 0,
      webhook: { id: a, url: 'https://127.0.0.1:9/hook' },
    });
    expect(first[0]!.event?.id).toBeDefined();
    expect(await leased(a)).toEqual([ofA[1], ofA[2]]);
    expect(await leased(b)).toEqual(ofB.slice(0, CAP));

    // Two end together: two slots, the next two in order; the cap still holds.
    const second = await outcomes().write([succeeded(claimedOfA[1]!), succeeded(first[0]!)], true);
    expect(second.map((delivery) => delivery.id)).toEqual([ofA[3], ofA[4]]);
    expect(await leased(a)).toHaveLength(CAP);

    // Without handing over (a worker stopping), or with a lease too old to be sure it is still
    // this worker's, the slot is only freed.
    const [third, fourth] = second;
    expect(await outcomes().write([succeeded(third!)], false)).toEqual([]);
    const stale = { ...fourth!, leasedAt: new Date(Date.now() - 60_000) };
    expect(await outcomes().write([succeeded(stale)], true)).toEqual([]);
    expect(await leased(a)).toEqual([]);

    // A's last plain delivery, then only the replay's are due: those wait for the claim, which
    // takes them one at a time.
    const last = await claimDeliveries(CAP, 100);
    expect(last.deliveries.filter((d) => d.webhookId === a).map((d) => d.id)).toEqual([
      ofA[5],
      replayOfA[0],
    ]);
    const fifth = last.deliveries.find((delivery) => delivery.id === ofA[5])!;
    expect(await outcomes().write([succeeded(fifth)], true)).toEqual([]);
  });

  it('keeps a claim from leasing a delivery a handover leased after the claim began', async () => {
    const hook = await webhook();
    const [handed, other] = await deliveries(hook, 2);
    // A handover's transaction leases the first, and has not committed when the claim looks.
    const handover = await dataSource.createQueryRunner();
    await handover.startTransaction();
    await handover.query(
      `UPDATE webhook_deliveries SET lease_until = now() + interval '15 seconds' WHERE id = $1`,
      [handed],
    );
    const claim = claimDeliveries(CAP, 100);
    // The claim saw both as due and waits for the row the handover holds.
    await waitFor(async () => {
      const [{ waiting }] = await dataSource.query(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND query LIKE '%webhook-delivery-claim%'`,
      );
      return waiting > 0 ? true : null;
    });
    await handover.commitTransaction();
    await handover.release();
    const claimed = (await claim).deliveries.filter((delivery) => delivery.webhookId === hook);
    expect(claimed.map((delivery) => delivery.id)).toEqual([other]);
    expect(await leased(hook)).toEqual([handed, other]);
  });
});
