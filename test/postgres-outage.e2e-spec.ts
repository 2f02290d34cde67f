import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { QUEUE } from '#queue';
import { type ApiResponse, TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { childEnv, spawnWorker, type ChildService } from './support/processes.js';
import { testDatabaseUrl, testRedisPrefix } from './support/scope.js';
import { startStack, type Stack } from './support/stack.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { DEADLINE_MS, TEST_TIMEOUT_MS, waitFor } from './support/wait.js';

/**
 * PostgreSQL goes away under a steady load of creates and reads, and comes
 * back. Meanwhile the API answers 503 SERVICE_UNAVAILABLE with Retry-After
 * (never a 500), both readiness probes fail and the worker holds its jobs
 * without spending their attempts. Afterwards everything the API accepted
 * completes, and every event of it reaches a real HTTPS receiver, at least
 * once and always under its own event id.
 */
let ca: TestCertificateAuthority;
let receiver: HttpsReceiver;
let proxy: TcpProxy;
let stack: Stack;
let worker: ChildService;
let client: TestClient;
let org: TestOrganization;
let token: string;
const queues: Queue[] = [];
/** The attempts a job is given (QueueModule's default job options). */
const ATTEMPTS = 5;

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
  const upstream = new URL(testDatabaseUrl());
  proxy = await TcpProxy.start({ host: upstream.hostname, port: Number(upstream.port || 5432) });
  const viaProxy = new URL(upstream);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  const env = {
    DATABASE_URL: viaProxy.toString(),
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
    WEBHOOK_RETRY_SCALE: '0.001',
    // Long enough that sessions and analyses are caught running when PostgreSQL goes.
    SIMULATED_STEP_MS: '100',
    DATABASE_POOL_MAX: '10',
  };
  stack = await startStack({ worker: false, env });
  worker = await spawnWorker(childEnv(env));
  await worker.ready;
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
  for (const name of [QUEUE.sessions, QUEUE.analyses]) {
    const queue = new Queue(name, {
      connection: { url: stack.settings.redisUrl },
      prefix: testRedisPrefix(),
    });
    queue.on('error', () => undefined);
    queues.push(queue);
  }
});
afterAll(async () => {
  await proxy?.restore();
  await Promise.all(queues.map((queue) => queue.close()));
  await worker?.kill('SIGTERM');
  await stack?.close();
  await proxy?.cut();
  await receiver?.close();
  await ca?.cleanup();
});

type Kind = 'session' | 'analysis' | 'query' | 'read';
interface Outcome {
  kind: Kind;
  response: ApiResponse;
}

/** One request of each kind: three creates and a read. */
async function oneOfEach(round: number, sessionToRead: string): Promise<Outcome[]> {
  const requests: [Kind, Promise<ApiResponse>][] = [
    [
      'session',
      client.post('/v1/sessions', {
        token,
        json: { type: 'remote_viewing', target: `outage load ${round}` },
      }),
    ],
    [
      'analysis',
      client.post('/v1/analysis/targets', {
        token,
        json: { target_type: 'object', analysis_type: 'quick_scan', description: `load ${round}` },
      }),
    ],
    [
      'query',
      client.post('/v1/dowsing/query', {
        token,
        json: { query_type: 'yes_no', question: `Is there water under field ${round}?` },
      }),
    ],
    ['read', client.get(`/v1/sessions/${sessionToRead}`, { token })],
  ];
  return Promise.all(
    requests.map(async ([kind, response]) => ({ kind, response: await response })),
  );
}

/** Public id of what an accepted create made. */
function createdId(outcome: Outcome): string {
  const body = outcome.response.body;
  return outcome.kind === 'session'
    ? body.session_id
    : outcome.kind === 'analysis'
      ? body.analysis_id
      : body.query_id;
}

/** What the test looks at in PostgreSQL, directly rather than through the proxy. */
async function inspect<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
  const database = new pg.Client({ connectionString: testDatabaseUrl() });
  await database.connect();
  try {
    return (await database.query<T>(text, values)).rows;
  } finally {
    await database.end();
  }
}

async function ready(url: string): Promise<number> {
  try {
    const response = await fetch(`${url}/health/ready`, {
      signal: AbortSignal.timeout(DEADLINE_MS),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

interface Delivered {
  eventId: string;
  body: string;
}

function delivered(): Delivered[] {
  return receiver.requests.map((request) => ({
    eventId: String(request.headers['webhook-id']),
    body: request.rawBody,
  }));
}

describe('PostgreSQL cut and restored under load', () => {
  it(
    'answers 503 while it is away, and completes and delivers everything it accepted',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const subscribed = await client.post('/v1/webhooks', {
        token,
        json: { url: receiver.url, events: ['*'] },
      });
      expect(subscribed.status).toBe(201);
      const first = await client.post('/v1/sessions', {
        token,
        json: { type: 'remote_viewing', target: 'read under load' },
      });
      expect(first.status).toBe(201);

      const outcomes: Outcome[] = [];
      let stopping = false;
      let round = 0;
      const load = Promise.all(
        [0, 1, 2].map(async () => {
          while (!stopping) {
            outcomes.push(...(await oneOfEach(round++, first.body.session_id)));
            // Paces the load: a steady stream, not a flood of instant 503s.
            await sleep(20);
          }
        }),
      );
      const accepted = () => outcomes.filter((o) => o.kind !== 'read' && o.response.status < 300);
      const refused = () => outcomes.filter((o) => o.response.status === 503);

      try {
        // Work of every kind accepted and some of it running when PostgreSQL goes.
        await waitFor(async () => {
          const kinds = new Set(accepted().map((o) => o.kind));
          if (kinds.size < 3) return null;
          const running = await inspect<{ count: number }>(
            `SELECT count(*)::int AS count FROM sessions
              WHERE organization_id = $1 AND status = 'in_progress'`,
            [org.organizationId],
          );
          return running[0]!.count > 0 ? true : null;
        });

        await proxy.cut();
        const refusedBefore = refused().length;
        // Every kind of request is refused at least once, and both probes fail.
        await waitFor(async () => {
          const kinds = new Set(
            refused()
              .slice(refusedBefore)
              .map((o) => o.kind),
          );
          return kinds.size === 4 ? true : null;
        });
        expect(await ready(stack.baseUrl)).toBe(503);
        expect(await ready(worker.url)).toBe(503);
        // The worker met the outage in a job and paused that queue instead of failing the job.
        await waitFor(async () => {
          const ttls = await Promise.all(queues.map((queue) => queue.getRateLimitTtl()));
          return ttls.some((ttl) => ttl > 0) ? true : null;
        });
        // Away long enough for a job to be started more often than its attempts (5) allow.
        await waitFor(
          async () => {
            for (const queue of queues) {
              const waiting = await queue.getJobs(['wait', 'active', 'prioritized'], 0, -1);
              if (waiting.some((job) => job.attemptsStarted > ATTEMPTS)) return true;
            }
            return null;
          },
          DEADLINE_MS,
          250,
        );

        await proxy.restore();
        await waitFor(async () => ((await ready(stack.baseUrl)) === 200 ? true : null));
        await waitFor(async () => ((await ready(worker.url)) === 200 ? true : null));
        // Some load after the return too: the API serves again.
        const afterReturn = outcomes.length;
        await waitFor(async () =>
          outcomes.slice(afterReturn).filter((o) => o.response.status < 300).length >= 8
            ? true
            : null,
        );
      } finally {
        stopping = true;
        await load;
      }

      // Nothing but successes and 503s, each 503 in the spec's envelope with Retry-After.
      for (const { kind, response } of outcomes) {
        if (response.status < 300) continue;
        expect(response.status, `${kind}: ${response.text}`).toBe(503);
        expect(response.headers.get('retry-after'), kind).toMatch(/^\d+$/);
        expect(response.body.error.code, kind).toBe('SERVICE_UNAVAILABLE');
      }
      expect(refused().length).toBeGreaterThan(0);

      // Everything accepted completes: sessions and analyses run, queries answered at once.
      const created = accepted();
      const ids = {
        session: new Set<string>(),
        analysis: new Set<string>(),
        query: new Set<string>(),
      };
      for (const outcome of created) ids[outcome.kind as keyof typeof ids].add(createdId(outcome));
      ids.session.add(first.body.session_id);
      expect(ids.query.size).toBeGreaterThan(0);
      for (const outcome of created.filter((o) => o.kind === 'query')) {
        expect(outcome.response.body.status).toBe('completed');
      }
      await waitFor(
        async () => {
          const pending: string[] = [];
          for (const id of ids.session) {
            const session = await client.get(`/v1/sessions/${id}`, { token });
            if (session.body.status !== 'completed') pending.push(id);
          }
          for (const id of ids.analysis) {
            const analysis = await client.get(`/v1/analysis/${id}`, { token });
            if (analysis.body.status !== 'completed') pending.push(id);
          }
          return pending.length === 0 ? true : null;
        },
        DEADLINE_MS,
        500,
      );

      // No job was spent on the outage: none failed, none counts a failed attempt (BullMQ counts
      // the successful one), and those that met it were started again without being counted.
      let restarted = 0;
      for (const queue of queues) {
        expect(await queue.getJobCounts('failed'), queue.name).toEqual({ failed: 0 });
        const done = await queue.getJobs(['completed'], 0, -1);
        expect(done.length, queue.name).toBeGreaterThan(0);
        expect(
          done.filter((job) => job.attemptsMade > 1).map((job) => job.id),
          queue.name,
        ).toEqual([]);
        restarted += done.filter((job) => job.attemptsStarted > 1).length;
      }
      expect(restarted).toBeGreaterThan(0);

      // Every event of the accepted work reaches the receiver, under its own id.
      const events = await inspect<{ id: string; type: string; data: Record<string, unknown> }>(
        `SELECT id, type, data FROM events WHERE organization_id = $1`,
        [org.organizationId],
      );
      const ofAccepted = events.filter(
        ({ data }) =>
          ids.session.has(data.session_id as string) ||
          ids.analysis.has(data.analysis_id as string) ||
          ids.query.has(data.query_id as string),
      );
      for (const [kind, terminal] of [
        ['session', 'session.completed'],
        ['analysis', 'analysis.completed'],
        ['query', 'dowsing.query_completed'],
      ] as const) {
        expect(ofAccepted.filter((event) => event.type === terminal).length, kind).toBe(
          ids[kind].size,
        );
      }
      const expected = ofAccepted.map((event) => toPublicId('event', event.id));
      await waitFor(
        async () => {
          const seen = new Set(delivered().map((d) => d.eventId));
          return expected.every((id) => seen.has(id)) ? true : null;
        },
        DEADLINE_MS,
        250,
      );
      // At least once: a redelivery is the same event (its live pending_webhooks count aside).
      const bodies = new Map<string, unknown>();
      for (const { eventId, body } of delivered()) {
        const { pending_webhooks: _pending, ...event } = JSON.parse(body) as Record<
          string,
          unknown
        >;
        expect(event.id).toBe(eventId);
        if (bodies.has(eventId)) expect(event).toEqual(bodies.get(eventId));
        bodies.set(eventId, event);
      }
    },
  );
});
