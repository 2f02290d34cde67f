import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { QUEUE } from '#queue';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { childEnv, spawnWorker, type ChildService } from './support/processes.js';
import { startPrivateRedis, type PrivateRedis } from './support/redis-server.js';
import { testDatabaseUrl, testRedisPrefix } from './support/scope.js';
import { startStack, type Stack } from './support/stack.js';
import { DEADLINE_MS, TEST_TIMEOUT_MS, waitFor } from './support/wait.js';

/**
 * Simulated sessions survive the worker and Redis dying under them, and one
 * webhook receiver that stalls holds up no other. PostgreSQL holds each
 * session's progress and every delivery, so nothing accepted is lost; what
 * is repeated is repeated at least once under the same event id, never as a
 * new event. One stack for the file: the API in this process, workers as
 * child processes (SIGKILL-able), a private Redis (restartable, empty).
 */
let ca: TestCertificateAuthority;
let receiver: HttpsReceiver;
let redis: PrivateRedis;
let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;
let maintenance: Queue;
/** The worker running now (the first is killed by the first test). */
let worker: ChildService | null = null;

const env = {
  WEBHOOK_EXTRA_CA_FILE: '',
  WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
  WEBHOOK_RETRY_SCALE: '0.001',
  // Two sessions at a time, each about ten steps of 150 ms: a batch is caught half done.
  WORKER_CONCURRENCY: '2',
  SIMULATED_STEP_MS: '150',
  // A killed worker's jobs are taken over once their lock has run out and a stalled-job check
  // has seen it: about 5 + 1 s here instead of BullMQ's 30 + 30 s.
  QUEUE_LOCK_DURATION_MS: '5000',
  QUEUE_STALLED_INTERVAL_MS: '1000',
};

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
  redis = await startPrivateRedis();
  Object.assign(env, { WEBHOOK_EXTRA_CA_FILE: ca.caFile, REDIS_URL: redis.url });
  stack = await startStack({ worker: false, env });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
  const subscribed = await client.post('/v1/webhooks', {
    token,
    json: { url: receiver.url, events: ['*'] },
  });
  expect(subscribed.status).toBe(201);
  maintenance = new Queue(QUEUE.maintenance, {
    connection: { url: redis.url },
    prefix: testRedisPrefix(),
  });
  // Its connection errors while Redis is away are expected; they must not go unhandled.
  maintenance.on('error', () => undefined);
});
afterAll(async () => {
  await maintenance?.close();
  await worker?.kill('SIGTERM');
  await stack?.close();
  await redis?.close();
  await receiver?.close();
  await ca?.cleanup();
});

async function startWorker(): Promise<ChildService> {
  // Warnings logged: the Redis test reads in them how the worker recovered.
  const started = await spawnWorker(childEnv({ ...env, LOG_LEVEL: 'warn' }));
  await started.ready;
  return started;
}

/** What the test reads in PostgreSQL directly. */
async function inspect<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
  const database = new pg.Client({ connectionString: testDatabaseUrl() });
  await database.connect();
  try {
    return (await database.query<T>(text, values)).rows;
  } finally {
    await database.end();
  }
}

async function createBatch(label: string, count: number): Promise<string[]> {
  const created = await client.post('/v1/batch/sessions', {
    token,
    json: {
      sessions: Array.from({ length: count }, (_, i) => ({
        type: 'remote_viewing',
        target: `${label} ${i}`,
      })),
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.sessions.map((s: { session_id: string }) => s.session_id);
}

/** How many of these sessions are in each status. */
async function statuses(ids: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const id of ids) {
    const { status } = (await client.get(`/v1/sessions/${id}`, { token })).body;
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

async function allCompleted(ids: readonly string[]): Promise<void> {
  await waitFor(
    async () => ((await statuses(ids)).completed === ids.length ? true : null),
    DEADLINE_MS,
    500,
  );
}

/**
 * A delivered event without its live count of webhooks still to deliver it (pending_webhooks,
 * read at each attempt): what a redelivery must repeat exactly.
 */
function eventOf(rawBody: string): Record<string, unknown> {
  const { pending_webhooks: _pending, ...event } = JSON.parse(rawBody) as Record<string, unknown>;
  return event;
}

/** The requests the receiver got on a path, each with its event id. */
function requestsTo(path: string): (ReceivedRequest & { eventId: string })[] {
  return receiver.requests
    .filter((request) => request.path === path)
    .map((request) => ({ ...request, eventId: String(request.headers['webhook-id']) }));
}

/**
 * Every event of these sessions reached the receiver's /hooks, each a single event (one
 * started, one completed per session) and any redelivery the same event.
 */
async function expectEveryEventDelivered(ids: readonly string[]): Promise<void> {
  const events = (
    await inspect<{ id: string; type: string; data: { session_id?: string } }>(
      `SELECT id, type, data FROM events WHERE organization_id = $1`,
      [org.organizationId],
    )
  ).filter((event) => ids.includes(event.data.session_id!));
  for (const type of ['session.created', 'session.started', 'session.completed']) {
    const ofType = events.filter((event) => event.type === type);
    expect(ofType.map((event) => event.data.session_id).sort(), type).toEqual([...ids].sort());
  }
  const expected = events.map((event) => toPublicId('event', event.id));
  await waitFor(
    async () => {
      const seen = new Set(requestsTo('/hooks').map((request) => request.eventId));
      return expected.every((id) => seen.has(id)) ? true : null;
    },
    DEADLINE_MS,
    250,
  );
  const bodies = new Map<string, unknown>();
  for (const { eventId, rawBody } of requestsTo('/hooks')) {
    const event = eventOf(rawBody);
    expect(event.id).toBe(eventId);
    if (bodies.has(eventId)) expect(event).toEqual(bodies.get(eventId));
    bodies.set(eventId, event);
  }
}

describe('a worker killed with SIGKILL in the middle of a batch', () => {
  it(
    'leaves every session to another worker, each completed once, every event delivered',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const first = await startWorker();
      worker = first;
      const ids = await createBatch('killed mid-batch', 8);
      await waitFor(async () => {
        const counts = await statuses(ids);
        return counts.completed && counts.in_progress ? true : null;
      });
      expect((await first.kill('SIGKILL')).signal).toBe('SIGKILL');
      const atKill = await statuses(ids);
      expect(atKill.completed ?? 0).toBeLessThan(ids.length);

      worker = await startWorker();
      // The killed worker's sessions come back when BullMQ sees their jobs stalled (a 5 s lock
      // and a 1 s check); the deadline leaves room for a loaded machine.
      await allCompleted(ids);
      await expectEveryEventDelivered(ids);
    },
  );
});

describe('Redis restarted empty with sessions queued and running', () => {
  it(
    'completes every accepted session: running ones carry on, lost jobs are enqueued again at once',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      worker ??= await startWorker();
      const ids = await createBatch('redis restarted', 10);
      await waitFor(async () => {
        const counts = await statuses(ids);
        return counts.completed && counts.initiated ? true : null;
      });

      // A job nobody takes for an hour: gone after the restart, so Redis came back empty.
      await maintenance.add('marker', {}, { jobId: 'before-restart', delay: 3_600_000 });
      await redis.stop('shutdown');
      await redis.start();
      expect(await maintenance.getJob('before-restart')).toBeUndefined();

      // The queued sessions' jobs went with Redis's data. The worker notices once its
      // connection is back (its data markers are gone) and enqueues them again itself, without
      // the sweep's staleness wait (over a minute): no updated_at moved back, no sweep job added.
      await allCompleted(ids);
      expect(worker.output()).toContain('sessions whose job Redis lost enqueued again');
      await expectEveryEventDelivered(ids);
    },
  );
});

describe('a webhook receiver that stalls', () => {
  it(
    'holds up no other endpoint, and gets its event, retried under the same id, once it answers',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      worker ??= await startWorker();
      const stalledPath = '/stalled';
      const stalledUrl = new URL(stalledPath, receiver.url).toString();
      const subscribed = await client.post('/v1/webhooks', {
        token,
        json: { url: stalledUrl, events: ['session.created'] },
      });
      expect(subscribed.status).toBe(201);
      let stalling = true;
      // Longer than any test: only the sender's own time limit (5 s) ends a stalled request.
      receiver.respondWith((request) =>
        request.path === stalledPath && stalling ? { delayMs: 600_000 } : { status: 200 },
      );

      const [stalledSession] = await createBatch('stalled receiver', 1);
      await waitFor(async () => (requestsTo(stalledPath).length > 0 ? true : null));
      // While that one hangs, the other endpoint gets new sessions' events.
      const others = await createBatch('other endpoint', 3);
      await waitFor(async () => {
        const created = requestsTo('/hooks').filter(
          (request) =>
            JSON.parse(request.rawBody).type === 'session.created' &&
            others.includes(JSON.parse(request.rawBody).data.session_id),
        );
        return created.length >= others.length ? true : null;
      });
      expect(requestsTo(stalledPath).every((request) => request.respondedAt === null)).toBe(true);

      // The stalled attempt timed out and was retried under the same event id.
      const first = requestsTo(stalledPath).find(
        (request) => JSON.parse(request.rawBody).data.session_id === stalledSession,
      )!;
      await waitFor(async () => {
        const attempts = requestsTo(stalledPath).filter((r) => r.eventId === first.eventId);
        return attempts.length >= 2 && attempts[0]!.clientAborted ? true : null;
      });
      stalling = false;

      const delivered = await waitFor(
        async () =>
          requestsTo(stalledPath).find(
            (r) => r.eventId === first.eventId && r.respondedAt !== null,
          ) ?? null,
      );
      expect(eventOf(delivered.rawBody)).toEqual(eventOf(first.rawBody));
      expect(Number(delivered.headers['x-service-delivery-attempt'])).toBeGreaterThan(1);
      // Its deliveries all succeed in the end: the timed-out attempts recorded, none given up.
      const deliveries = await waitFor(async () => {
        const list = await client.get(
          `/v1/webhooks/${subscribed.body.webhook_id}/deliveries?limit=100`,
          { token },
        );
        const all = list.body.results as { state: string; attempt_count: number }[];
        return all.length === 1 + others.length && all.every((d) => d.state === 'succeeded')
          ? all
          : null;
      });
      expect(Math.max(...deliveries.map((d) => d.attempt_count))).toBeGreaterThan(1);
    },
  );
});
