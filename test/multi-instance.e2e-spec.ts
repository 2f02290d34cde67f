import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Scope } from '#common';
import { SigningKeyService } from '#auth';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startHaproxy, type Haproxy } from './support/haproxy.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { childEnv, spawnApi, spawnWorker, type ChildService } from './support/processes.js';
import { freePort, startStack, type Stack } from './support/stack.js';
import { REVOCATION_DEADLINE_MS, waitFor } from './support/wait.js';

/**
 * The service is stateless (issue 20): two API processes and two workers on one
 * database and Redis, behind Debian's haproxy with the repository's
 * deploy/haproxy.cfg (round robin, checks on /health/ready). Everything a client
 * does goes through haproxy; an in-process API (not behind it) only creates
 * organisations and rotates the signing key, as an operator would.
 */

let ca: TestCertificateAuthority;
let receiver: HttpsReceiver;
let apis: ChildService[] = [];
let workers: ChildService[] = [];
let lb: Haproxy;
let admin: Stack;
/** Through haproxy. */
let client: TestClient;
/** Straight to each API instance, bypassing haproxy. */
let direct: TestClient[];

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
  const lbPort = await freePort();
  // Every instance is the same service at the same public address: tokens one issues, all accept.
  const env = childEnv({
    PUBLIC_URL: `http://127.0.0.1:${lbPort}`,
    // Drains for half of it (3 s) at SIGTERM: ample for haproxy's checks every 250 ms.
    SHUTDOWN_GRACE_MS: '6000',
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
  });
  // Two sessions at a time per worker, each a few steps long: a burst spreads over both.
  const workerEnv = { ...env, WORKER_CONCURRENCY: '2', SIMULATED_STEP_MS: '40', LOG_LEVEL: 'info' };
  apis = [await spawnApi(env), await spawnApi(env)];
  workers = [await spawnWorker(workerEnv), await spawnWorker(workerEnv)];
  await Promise.all([...apis, ...workers].map((child) => child.ready));
  admin = await startStack({ worker: false, env: { PUBLIC_URL: `http://127.0.0.1:${lbPort}` } });
  lb = await startHaproxy({ port: lbPort, servers: apis.map((api) => api.url) });
  direct = await Promise.all(apis.map((api) => TestClient.for({ baseUrl: api.url })));
  // Through haproxy, checked against the contract the instances serve.
  client = new TestClient(lb.url, direct[0]!.contract);
  // Both instances in the rotation before any test counts on round robin. Until haproxy's
  // first checks have settled, a request may meet a connection it drops: not yet, not a failure.
  await waitFor(async () => {
    const seen = new Set<string>();
    try {
      for (let i = 0; i < 4; i++) seen.add(servedBy(await client.get('/health/ready')));
    } catch {
      return null;
    }
    return seen.size === 2 ? true : null;
  }).catch((error: Error) => {
    throw new Error(`${error.message}; haproxy's output:\n${lb.output().slice(-8_000)}`);
  });
});

afterAll(async () => {
  await lb?.close();
  await Promise.all([...apis, ...workers].map((child) => child.kill('SIGTERM')));
  await admin?.close();
  await receiver?.close();
  await ca?.cleanup();
});

function servedBy(response: ApiResponse): string {
  return response.headers.get('x-served-by') ?? 'unknown';
}

/** A WebSocket through haproxy that keeps every JSON frame it receives. */
async function openSocket(
  path: string,
  apiKey: string,
): Promise<{ frames: any[]; socket: WebSocket }> {
  const socket = new WebSocket(`${lb.url.replace(/^http/, 'ws')}${path}`, {
    headers: { 'x-api-key': apiKey },
  });
  const frames: any[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    // A refused upgrade: its status and error body say why.
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () =>
        reject(new Error(`upgrade refused: ${response.statusCode} ${text}`)),
      );
    });
  });
  return { frames, socket };
}

/** The worker whose log says it completed `sessionId` (workers log at info level here). */
function workerThatRan(sessionId: string): number[] {
  return workers
    .map((worker, index) => ({ index, output: worker.output() }))
    .filter(({ output }) =>
      output
        .split('\n')
        .some((line) => line.includes('"msg":"session completed"') && line.includes(sessionId)),
    )
    .map(({ index }) => index);
}

// Generous: CI machines run other test files beside this one's six processes.
describe('two API instances and two workers behind haproxy', () => {
  it('streams live updates of work either worker ran, over WebSockets through haproxy', async () => {
    const org = await createOrganization(admin, client);
    const apiKey = await org.apiKey();
    const updates = await openSocket('/v1/sessions/ws', apiKey);
    updates.socket.send(JSON.stringify({ type: 'subscribe', session_id: '*' }));
    await waitFor(async () => (updates.frames.some((f) => f.type === 'subscribed') ? true : null));
    const events = await openSocket('/v2/events/listen?mode=live', apiKey);
    await waitFor(async () => (events.frames.some((f) => f.type === 'listen.ready') ? true : null));

    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        client.post('/v1/sessions', {
          apiKey,
          json: { type: 'remote_viewing', target: `Several instances ${i}` },
        }),
      ),
    );
    expect(created.map((response) => response.status)).toEqual(Array(8).fill(201));
    expect(new Set(created.map(servedBy))).toEqual(new Set(['api1', 'api2']));
    const ids = created.map((response) => response.body.session_id as string);

    await waitFor(async () => {
      const completed = new Set(
        updates.frames.filter((f) => f.type === 'session.completed').map((f) => f.session_id),
      );
      const announced = new Set(
        events.frames.filter((f) => f.type === 'session.completed').map((f) => f.data.session_id),
      );
      return ids.every((id) => completed.has(id) && announced.has(id)) ? true : null;
    });
    updates.socket.terminate();
    events.socket.terminate();
    // Each session ran on exactly one worker, and both workers ran some.
    const ranBy = ids.map((id) => workerThatRan(id));
    expect(ranBy.every((by) => by.length === 1)).toBe(true);
    expect(new Set(ranBy.flat())).toEqual(new Set([0, 1]));
  });

  it('counts rate limits and concurrency limits once across instances', async () => {
    const org = await createOrganization(admin, client, 'live', 'enterprise', {
      tier: 'custom',
      requestsPerMinute: 6,
      maxConcurrentSessions: 3,
    });
    const apiKey = await org.apiKey();
    const reads: ApiResponse[] = [];
    for (let i = 0; i < 12; i++) reads.push(await client.get('/v1/sessions?limit=1', { apiKey }));
    expect(reads.map((r) => r.status)).toEqual([...Array(6).fill(200), ...Array(6).fill(429)]);
    expect(new Set(reads.slice(0, 6).map(servedBy))).toEqual(new Set(['api1', 'api2']));

    const burstOrg = await createOrganization(admin, client, 'live', 'enterprise', {
      tier: 'custom',
      maxConcurrentSessions: 3,
    });
    const burstKey = await burstOrg.apiKey();
    // Workers paused, so no session finishes during the burst: the running count is exact.
    for (const worker of workers) process.kill(worker.pid, 'SIGSTOP');
    try {
      const burst = await Promise.all(
        Array.from({ length: 8 }, () =>
          client.post('/v1/sessions', {
            apiKey: burstKey,
            json: { type: 'dowsing', target: 'Counted once' },
          }),
        ),
      );
      expect(burst.filter((r) => r.status === 201)).toHaveLength(3);
      expect(burst.filter((r) => r.status === 429)).toHaveLength(5);
      expect(new Set(burst.map(servedBy))).toEqual(new Set(['api1', 'api2']));
    } finally {
      for (const worker of workers) process.kill(worker.pid, 'SIGCONT');
    }
  });

  it('replays an idempotent create on the other instance', async () => {
    const org = await createOrganization(admin, client);
    const apiKey = await org.apiKey();
    const request = {
      apiKey,
      headers: { 'idempotency-key': randomUUID() },
      json: { type: 'remote_viewing', target: 'Once only' },
    };
    const first = await client.post('/v1/sessions', request);
    const again = await client.post('/v1/sessions', request);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(servedBy(again)).not.toBe(servedBy(first));
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.session_id).toBe(first.body.session_id);
    expect((await client.get('/v1/sessions', { apiKey })).body.total).toBe(1);
  });

  it('makes a key revocation and a signing-key rotation hold on every instance at once', async () => {
    const org = await createOrganization(admin, client);
    const token = await org.token();
    const created = await client.post('/v1/api-keys', {
      token,
      json: { name: 'revoked everywhere', scopes: [Scope.SessionsRead] },
    });
    expect(created.status).toBe(201);
    const { id, key } = created.body as { id: string; key: string };
    // Cached as valid on both instances first.
    for (const instance of direct)
      expect((await instance.get('/v1/sessions', { apiKey: key })).status).toBe(200);
    expect((await client.post(`/v1/api-keys/${id}/revoke`, { token })).status).toBe(200);
    for (const instance of direct) {
      await expect
        .poll(async () => (await instance.get('/v1/sessions', { apiKey: key })).status, {
          timeout: REVOCATION_DEADLINE_MS,
          interval: 20,
        })
        .toBe(401);
    }

    const newKid = await admin.api.get(SigningKeyService).rotate(0);
    const issuedAfterRotation = await org.token();
    // The admin instance signs with the new key at once; the others learn it on first sight.
    const adminToken = await adminIssued(org.clientId, org.clientSecret);
    expect(decodeProtectedHeader(adminToken).kid).toBe(newKid);
    for (const instance of direct) {
      expect((await instance.get('/v1/sessions', { token: adminToken })).status).toBe(200);
      // Tokens of the previous key stay valid until they expire.
      expect((await instance.get('/v1/sessions', { token })).status).toBe(200);
      expect((await instance.get('/v1/sessions', { token: issuedAfterRotation })).status).toBe(200);
    }
  });

  it('delivers each event once per endpoint with two workers', async () => {
    const org = await createOrganization(admin, client);
    const token = await org.token();
    receiver.reset();
    const endpoints = [];
    for (const path of ['a', 'b']) {
      const registered = await client.post('/v1/webhooks', {
        token,
        json: { url: `${receiver.url}/${path}`, events: ['session.created'] },
      });
      expect(registered.status, registered.text).toBe(201);
      endpoints.push(registered.body.webhook_id as string);
    }
    const sessions = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.post('/v1/sessions', { token, json: { type: 'dowsing', target: `Hook ${i}` } }),
      ),
    );
    expect(sessions.map((r) => r.status)).toEqual(Array(10).fill(201));

    // Every delivery recorded as succeeded on both endpoints, each after one attempt.
    for (const webhookId of endpoints) {
      const deliveries = await waitFor(async () => {
        const list = await client.get(`/v1/webhooks/${webhookId}/deliveries?limit=100`, { token });
        const results = list.body.results as {
          state: string;
          event_id: string;
          attempt_count: number;
        }[];
        return results.length === 10 && results.every((d) => d.state === 'succeeded')
          ? results
          : null;
      });
      expect(deliveries.every((d) => d.attempt_count === 1)).toBe(true);
      expect(new Set(deliveries.map((d) => d.event_id)).size).toBe(10);
    }
    const received = receiver.requests;
    expect(received).toHaveLength(20);
    for (const endpoint of ['a', 'b']) {
      const ids = received
        .filter((request) => request.path.endsWith(`/${endpoint}`))
        .map((request) => request.headers['webhook-id']);
      expect(new Set(ids).size).toBe(10);
    }
    const sessionIds = new Set(sessions.map((r) => r.body.session_id));
    const announced = new Set(
      received.map((request) => JSON.parse(request.rawBody).data.session_id),
    );
    expect(announced).toEqual(sessionIds);
  });

  it('drains an instance on SIGTERM without failing a request', async () => {
    const org = await createOrganization(admin, client, 'live', 'enterprise', {
      tier: 'custom',
      requestsPerMinute: 1_000_000,
      maxConcurrentSessions: 100_000,
    });
    const apiKey = await org.apiKey();
    const failures: string[] = [];
    const served: { by: string; at: number }[] = [];
    let stop = false;
    const stream = async (create: boolean) => {
      while (!stop) {
        try {
          const response = create
            ? await client.post('/v1/sessions', {
                apiKey,
                headers: { 'idempotency-key': randomUUID() },
                json: { type: 'dowsing', target: 'Draining' },
              })
            : await client.get('/v1/sessions?limit=1', { apiKey });
          if (response.status !== (create ? 201 : 200))
            failures.push(`${response.status} ${response.text}`);
          else served.push({ by: servedBy(response), at: Date.now() });
        } catch (error) {
          failures.push(String((error as Error).cause ?? error));
        }
      }
    };
    const streams = [stream(false), stream(false), stream(false), stream(true)];
    const count = (by: string, after = 0) =>
      served.filter((s) => s.by === by && s.at > after).length;
    try {
      await waitFor(async () => (count('api1') >= 20 && count('api2') >= 20 ? true : null));
      const [, leaving] = apis as [ChildService, ChildService];
      const signalledAt = Date.now();
      const exited = leaving.kill('SIGTERM');
      // It says it is not ready while it still answers: haproxy takes it out of the rotation.
      await expect
        .poll(async () => (await fetch(`${leaving.url}/health/ready`)).status, { interval: 20 })
        .toBe(503);
      const exit = await exited;
      expect(exit.code === 0 || exit.signal === 'SIGTERM', `exit ${JSON.stringify(exit)}`).toBe(
        true,
      );
      const exitedAt = Date.now();
      await waitFor(async () => (count('api1', exitedAt) >= 50 ? true : null));
      expect(count('api2', signalledAt)).toBeGreaterThan(0);
      expect(count('api2', exitedAt)).toBe(0);
      // haproxy took it out because it said so, before it stopped listening (not "Layer4").
      expect(lb.output()).toMatch(
        /Server api\/api2 is DOWN, reason: Layer7 wrong status, code: 503/,
      );
    } finally {
      stop = true;
      await Promise.all(streams);
    }
    expect(failures).toEqual([]);
  });
});

/** A token issued by the admin instance itself (not through haproxy): the rotated key signs it. */
async function adminIssued(clientId: string, clientSecret: string): Promise<string> {
  const { port } = admin.api.getHttpServer().address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}
