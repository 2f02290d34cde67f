import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Scope } from '#common';
import { QUEUE } from '#queue';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startPrivateRedisCluster, type PrivateRedisCluster } from './support/redis-cluster.js';
import { startStack, type Stack } from './support/stack.js';
import { REVOCATION_DEADLINE_MS, waitFor } from './support/wait.js';

// The whole service on a private three-master Redis Cluster (REDIS_CLUSTER_NODES):
// instance `a` with the worker, instance `b` without, both on the cluster only.

let cluster: PrivateRedisCluster;
let ca: TestCertificateAuthority;
let receiver: HttpsReceiver;
let a: Stack;
let b: Stack;
let clientA: TestClient;
let clientB: TestClient;
let org: TestOrganization;
let token: string;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  cluster = await startPrivateRedisCluster();
  ca = await createTestCertificateAuthority();
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
  const env = {
    REDIS_CLUSTER_NODES: cluster.nodes,
    // Nothing may reach the shared Redis: a REDIS_URL nobody listens on.
    REDIS_URL: 'redis://127.0.0.1:1',
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
  };
  a = await startStack({ env });
  // Behind the same public URL as `a`, so it accepts a's access tokens.
  const other = await startStack({ worker: false, env: { ...env, PUBLIC_URL: a.baseUrl } });
  const { port } = other.api.getHttpServer().address() as AddressInfo;
  b = { ...other, baseUrl: `http://127.0.0.1:${port}` };
  [clientA, clientB] = await Promise.all([TestClient.for(a), TestClient.for(b)]);
  org = await createOrganization(a, clientA);
  token = await org.token();
});

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  // The workers finish their jobs before closing: they need the cluster up to do so.
  if (cluster && !cluster.running) await cluster.start();
  await b?.close();
  await a?.close();
  await receiver?.close();
  await ca?.cleanup();
  await cluster?.close();
});

/**
 * Listens on `ports` (free while the cluster is away) and counts the connections of ioredis's
 * cluster subscribers, which name themselves in their first command; the clusters' own
 * reconnections (their slot refreshers, backing off by clusterRetryStrategy) are not counted.
 */
async function countSubscriberConnections(ports: number[]) {
  let count = 0;
  const started = performance.now();
  const servers = await Promise.all(
    ports.map(
      (port) =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer((socket) => {
            socket.once('data', (data) => {
              if (String(data).includes('ioredis-cluster(subscriber)')) count += 1;
              socket.destroy();
            });
            socket.on('error', () => undefined);
          });
          server.once('error', reject).listen(port, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  return {
    async stop() {
      const seconds = (performance.now() - started) / 1000;
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      return { count, seconds };
    },
  };
}

/**
 * A key `b` has cached, revoked on `a`: `b` refuses it well before the cache's 30 s, so the
 * invalidation came over the cluster's pub/sub.
 */
async function expectRevocationSeenByB(): Promise<void> {
  const createdKey = await clientA.post('/v1/api-keys', {
    token,
    json: { name: 'cluster', scopes: [Scope.SessionsRead] },
  });
  expect(createdKey.status).toBe(201);
  const { id, key } = createdKey.body as { id: string; key: string };
  // 404: the key is accepted (and now cached by `b`); the session does not exist.
  const probe = '/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd';
  expect((await clientB.get(probe, { apiKey: key })).status).toBe(404);

  expect((await clientA.post(`/v1/api-keys/${id}/revoke`, { token })).status).toBe(200);
  await expect
    .poll(async () => (await clientB.get(probe, { apiKey: key })).status, {
      timeout: REVOCATION_DEADLINE_MS,
      interval: 50,
    })
    .toBe(401);
}

/** A live-update socket on `stack`, keeping every message it receives. */
async function liveSocket(stack: Stack): Promise<{ socket: WebSocket; messages: any[] }> {
  const socket = new WebSocket(`${stack.baseUrl.replace(/^http/, 'ws')}/v1/sessions/ws`, {
    headers: { authorization: `Bearer ${token}` },
  });
  sockets.push(socket);
  const messages: any[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, messages };
}

describe('the service on a Redis Cluster', () => {
  it('runs sessions through the queues, fans live updates out and delivers webhooks', async () => {
    const hook = await clientA.post('/v1/webhooks', {
      token,
      json: { url: receiver.url, events: ['session.completed'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);

    // [slow]: progress steps of 200 ms, so the subscription is in place before the end.
    const created = await clientA.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: 'cluster-wide [slow]' },
    });
    expect(created.status).toBe(201);
    const id = created.body.session_id as string;

    // The worker (with `a`) publishes; `b`, with no worker, hears it through Redis pub/sub.
    const live = await liveSocket(b);
    live.socket.send(JSON.stringify({ type: 'subscribe', session_id: id }));
    const completed = await waitFor(
      async () => live.messages.find((m) => m.type === 'session.completed') ?? null,
    );
    expect(completed).toMatchObject({ session_id: id, event_id: expect.any(String) });

    const read = await clientB.get(`/v1/sessions/${id}`, { token });
    expect(read.body).toMatchObject({ session_id: id, status: 'completed' });

    // A second session, not watched, completes too: the queue keeps working.
    const second = await clientB.post('/v1/sessions', {
      token,
      json: { type: 'dowsing', target: 'cluster-wide again' },
    });
    expect(second.status).toBe(201);
    await expect
      .poll(
        async () =>
          (await clientA.get(`/v1/sessions/${second.body.session_id}`, { token })).body.status,
        { interval: 100 },
      )
      .toBe('completed');

    const deliveries = await receiver.waitForRequests(2);
    const bodies = deliveries.map((request) => JSON.parse(request.rawBody));
    expect(bodies.map((body) => body.type)).toEqual(['session.completed', 'session.completed']);
    expect(bodies.map((body) => body.data.session_id).sort()).toEqual(
      [id, second.body.session_id].sort(),
    );
    expect(bodies.find((body) => body.data.session_id === id).id).toBe(completed.event_id);
  });

  it('counts request limits there: 429 once the minute is used up', async () => {
    const limited = await createOrganization(a, clientA, 'live', 'enterprise', {
      tier: 'custom',
      requestsPerMinute: 3,
    });
    const apiKey = await limited.apiKey();
    // Counted across both instances: one count in the cluster.
    for (const client of [clientA, clientB, clientA]) {
      expect((await client.get('/v1/sessions', { apiKey })).status).toBe(200);
    }
    const refused = await clientB.get('/v1/sessions', { apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { field: 'requests_per_minute', limit: 3, window: 'minute' },
    });
  });

  it('counts failed client credentials (a counter per address and per client)', async () => {
    const attempt = () =>
      clientA.post('/oauth2/token', {
        form: {
          grant_type: 'client_credentials',
          client_id: org.clientId,
          client_secret: 'not-the-secret',
        },
      });
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
    const counters = await cluster.keys(`${a.settings.redisPrefix}:attempts:*`);
    expect(counters.length).toBeGreaterThanOrEqual(2);
  });

  it('replays an idempotent create', async () => {
    const key = randomUUID();
    const request = {
      token,
      json: { type: 'dowsing', target: 'Idempotent on a cluster' },
      headers: { 'Idempotency-Key': key },
    };
    const first = await clientA.post('/v1/sessions', request);
    expect(first.status).toBe(201);
    const retry = await clientB.post('/v1/sessions', request);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('drops a revoked API key on the other instance too, where it was cached', async () => {
    await expectRevocationSeenByB();
  });

  it('spreads its keys over the nodes, each queue under its own hash tag', async () => {
    const perNode = await cluster.keysPerNode();
    expect(perNode.filter((count) => count > 0).length).toBeGreaterThanOrEqual(2);

    const prefix = a.settings.redisPrefix;
    const sessionsQueue = await cluster.keys(`{${prefix}:${QUEUE.sessions}}:${QUEUE.sessions}:*`);
    expect(sessionsQueue.length).toBeGreaterThan(0);
    // Nothing of BullMQ under the single-Redis layout.
    expect(await cluster.keys(`${prefix}:${QUEUE.sessions}:*`)).toEqual([]);
  });

  // Last: it takes the whole cluster away.
  it('serves without counting while the cluster is away, and runs sessions again once it is back', async () => {
    const apiKey = await org.apiKey();
    expect(
      (await clientA.get('/v1/sessions', { apiKey })).headers.get('x-ratelimit-limit'),
    ).not.toBeNull();

    await cluster.stop();
    // The instances' pub/sub subscribers (live updates, key revocations) knock on the nodes'
    // ports while they are away. By ioredis alone they would reconnect at once, every time,
    // thousands of times a second (redis/ioredis#2030); they back off
    // (libs/queue/src/cluster-subscriber-backoff.ts).
    const knocks = await countSubscriberConnections(cluster.ports);
    await expect
      .poll(
        async () => {
          const response = await clientB.get('/v1/sessions', { apiKey });
          return [response.status, response.headers.get('x-ratelimit-limit')];
        },
        { interval: 200 },
      )
      .toEqual([200, null]);
    await expect.poll(async () => (await clientA.get('/health/ready')).status).toBe(503);

    const { count, seconds } = await knocks.stop();
    // A few subscribers, each at most 7 attempts in its first 2 s and then one in 2 s: not
    // thousands a second.
    expect(count, `${count} connections in ${seconds.toFixed(1)} s`).toBeLessThan(60 + 5 * seconds);

    // Back empty (no persistence), with the same slots: the queues work again.
    await cluster.start();
    await expect.poll(async () => (await clientA.get('/health/ready')).status).toBe(200);
    const created = await clientB.post('/v1/sessions', {
      token,
      json: { type: 'dowsing', target: 'after the cluster came back' },
    });
    expect(created.status).toBe(201);
    await expect
      .poll(
        async () =>
          (await clientA.get(`/v1/sessions/${created.body.session_id}`, { token })).body.status,
        { interval: 200 },
      )
      .toBe('completed');
    await expect
      .poll(
        async () =>
          (await clientB.get('/v1/sessions', { apiKey })).headers.get('x-ratelimit-limit'),
        { interval: 200 },
      )
      .not.toBeNull();
    // The subscribers are back too.
    await expectRevocationSeenByB();
  });
});
