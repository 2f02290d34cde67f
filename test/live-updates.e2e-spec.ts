import { request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ApiKeyService } from '#api-keys';
import { Scope } from '#common';
import { SessionUpdatesGateway } from '../apps/api/src/live/session-updates.gateway.js';
import { createWorker } from '../apps/worker/src/worker.js';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { childEnv, spawnApi } from './support/processes.js';
import { startStack, type Stack } from './support/stack.js';
import { TEST_TIMEOUT_MS, waitFor } from './support/wait.js';
import { handshake, type Handshake } from './support/handshake.js';

const PATH = '/v1/sessions/ws';

interface Credentials {
  token?: string;
  apiKey?: string;
  /** Appended to the URL, e.g. `?access_token=…`. */
  query?: string;
  path?: string;
}

/** A `ws` client that keeps every message it receives, in order. */
class LiveClient {
  readonly messages: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private cursor = 0;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.messages.push(JSON.parse(String(data))));
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first message after the last one returned that matches. */
  async next(predicate: (message: any) => boolean = () => true): Promise<any> {
    return waitFor(async () => {
      const index = this.messages.findIndex((m, i) => i >= this.cursor && predicate(m));
      if (index === -1) return null;
      this.cursor = index + 1;
      return this.messages[index];
    });
  }

  /** Sends a command and returns the reply to it (`subscribed`, `unsubscribed` or `error`). */
  async request(message: unknown): Promise<any> {
    this.send(message);
    return this.next((m) => ['subscribed', 'unsubscribed', 'error'].includes(m.type));
  }
}

let a: Stack;
let b: Stack;
let worker: INestApplicationContext;
let clientA: TestClient;
let clientB: TestClient;
const opened: LiveClient[] = [];

/**
 * Another API instance behind the same public URL as `a` (so it accepts a's access
 * tokens), on the run's database and Redis; `baseUrl` is where it really listens.
 */
async function startInstance(env: Record<string, string> = {}): Promise<Stack> {
  const stack = await startStack({ worker: false, env: { PUBLIC_URL: a.baseUrl, ...env } });
  const { port } = stack.api.getHttpServer().address() as AddressInfo;
  return { ...stack, baseUrl: `http://127.0.0.1:${port}` };
}

// Two API instances (b pings every second) and one worker.
beforeAll(async () => {
  a = await startStack({ worker: false });
  b = await startInstance({ WS_HEARTBEAT_SECONDS: '1' });
  worker = await createWorker(a.settings);
  [clientA, clientB] = await Promise.all([TestClient.for(a), TestClient.for(b)]);
});
afterAll(async () => {
  await worker?.close();
  await b?.close();
  await a?.close();
});

// Every socket a test opened is closed, and both instances must forget it.
afterEach(async () => {
  for (const live of opened.splice(0)) live.socket.terminate();
  const gateways = [a, b].map((stack) => stack.api.get(SessionUpdatesGateway));
  await waitFor(async () =>
    gateways.every((g) => g.connectionCount === 0 && g.subscriptionCount === 0) ? true : null,
  );
});

function liveUrl(stack: Stack, credentials: Credentials): string {
  return `${stack.baseUrl.replace(/^http/, 'ws')}${credentials.path ?? PATH}${credentials.query ?? ''}`;
}

function headersOf(credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = {};
  if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
  if (credentials.apiKey) headers['x-api-key'] = credentials.apiKey;
  return headers;
}

async function connect(
  stack: Stack,
  credentials: Credentials,
  options: { autoPong?: boolean } = {},
): Promise<LiveClient> {
  const socket = new WebSocket(liveUrl(stack, credentials), {
    headers: headersOf(credentials),
    autoPong: options.autoPong ?? true,
  });
  const live = new LiveClient(socket);
  opened.push(live);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return live;
}

/** The HTTP answer to an upgrade the server refuses. */
async function refusal(stack: Stack, credentials: Credentials): Promise<Handshake> {
  const answer = await handshake(liveUrl(stack, credentials), headersOf(credentials));
  if (answer.status === 101) throw new Error('the upgrade was accepted');
  return answer;
}

async function createSession(client: TestClient, credentials: Credentials, target: string) {
  const created = await client.post('/v1/sessions', {
    ...credentials,
    json: { type: 'remote_viewing', target },
  });
  expect(created.status).toBe(201);
  return created.body.session_id as string;
}

const isUpdate = (message: any) => message.type.startsWith('session.');

describe('live session updates over WebSocket', () => {
  it('delivers the progress and results of a session created through another instance', async () => {
    const org = await createOrganization(a, clientA);
    const token = await org.token([Scope.SessionsRead, Scope.SessionsWrite]);
    // [slow]: ten progress steps of 200 ms, so the subscription is in place long before the end.
    const id = await createSession(clientB, { token }, 'live updates across instances [slow]');
    const live = await connect(a, { token });

    expect(await live.request({ type: 'subscribe', session_id: id })).toEqual({
      type: 'subscribed',
      session_id: id,
      status: expect.stringMatching(/^(initiated|in_progress)$/),
      progress: expect.any(Number),
      current_phase: expect.any(String),
      sequence: expect.any(Number),
    });
    const completed = await live.next((m) => m.type === 'session.completed');
    expect(completed).toEqual({
      type: 'session.completed',
      session_id: id,
      results: {
        coordinates: { latitude: expect.any(Number), longitude: expect.any(Number) },
        descriptors: expect.any(Array),
        sketches: expect.arrayContaining([expect.stringContaining(`/v1/sessions/${id}/sketches/`)]),
      },
      confidence_score: expect.any(Number),
      completed_at: expect.any(String),
      sequence: expect.any(Number),
      event_id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
    });

    const progress = live.messages.filter((m) => m.type === 'session.progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toEqual({
      type: 'session.progress',
      session_id: id,
      progress: expect.any(Number),
      current_phase: expect.any(String),
      sequence: expect.any(Number),
      event_id: expect.stringMatching(/^evt_/),
    });
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i].progress).toBeGreaterThan(progress[i - 1].progress);
      expect(progress[i].sequence).toBeGreaterThan(progress[i - 1].sequence);
    }
    expect(progress.at(-1).progress).toBe(100);
    expect(completed.sequence).toBeGreaterThan(progress.at(-1).sequence);
    expect(live.messages.indexOf(completed)).toBe(live.messages.length - 1);

    const read = await clientA.get(`/v1/sessions/${id}/results`, { token });
    expect(read.body.results.confidence_score).toBe(completed.confidence_score);
  });

  it('sends a * subscriber the sessions of its own organisation and mode only', async () => {
    const org = await createOrganization(a, clientA);
    const stranger = await createOrganization(a, clientA);
    const credentials: Record<'own' | 'sandbox' | 'other', Credentials> = {
      own: { token: await org.token() },
      sandbox: { apiKey: await org.apiKey([Scope.SessionsRead, Scope.SessionsWrite], 'test') },
      other: { token: await stranger.token() },
    };
    const names = ['own', 'sandbox', 'other'] as const;
    const clients = await Promise.all(names.map((name) => connect(a, credentials[name])));
    for (const live of clients) {
      expect(await live.request({ type: 'subscribe', session_id: '*' })).toEqual({
        type: 'subscribed',
        session_id: '*',
      });
    }

    const sessions: string[] = [];
    for (const name of names) {
      sessions.push(await createSession(clientB, credentials[name], `isolation check ${name}`));
    }
    await Promise.all(
      clients.map((live, i) =>
        live.next((m) => m.type === 'session.completed' && m.session_id === sessions[i]),
      ),
    );
    // Instance a has now handled every event of the three sessions; a reply on the same
    // socket comes after anything it sent there before, leaked or not.
    for (const live of clients) await live.request({ type: 'subscribe', session_id: '*' });
    clients.forEach((live, i) => {
      expect(new Set(live.messages.filter(isUpdate).map((m) => m.session_id))).toEqual(
        new Set([sessions[i]]),
      );
    });
  });

  it('reports a failed session as session.error', async () => {
    const org = await createOrganization(a, clientA);
    const token = await org.token();
    const live = await connect(b, { token });
    await live.request({ type: 'subscribe', session_id: '*' });
    const id = await createSession(clientA, { token }, 'live updates [fail]');

    expect(await live.next((m) => m.type === 'session.error')).toEqual({
      type: 'session.error',
      session_id: id,
      error: { code: 'engine_failure', message: expect.any(String) },
      failed_at: expect.any(String),
      sequence: expect.any(Number),
      event_id: expect.stringMatching(/^evt_/),
    });
    expect(live.messages.some((m) => m.type === 'session.completed')).toBe(false);
  });

  it('authenticates the upgrade: header, X-API-Key or access_token, with remote-viewing:read', async () => {
    const org = await createOrganization(a, clientA);
    const token = await org.token([Scope.SessionsRead]);

    const anonymous = await refusal(a, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({
      error: {
        code: 'UNAUTHORIZED',
        message: expect.any(String),
        details: { field: 'Authorization', issue: expect.stringContaining('no credential') },
        request_id: anonymous.headers['x-request-id'],
      },
    });
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer /);
    expect((await refusal(a, { token: 'not-a-token' })).status).toBe(401);
    expect((await refusal(a, { query: '?access_token=not-a-token' })).status).toBe(401);

    const writeOnly = await refusal(b, { token: await org.token([Scope.SessionsWrite]) });
    expect(writeOnly.status).toBe(403);
    expect(writeOnly.body.error).toMatchObject({
      code: 'FORBIDDEN',
      details: { required_scopes: [Scope.SessionsRead] },
    });

    const elsewhere = await refusal(a, { token, path: '/v1/sessions/websocket' });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe('NOT_FOUND');

    for (const live of [
      await connect(a, { query: `?access_token=${encodeURIComponent(token)}` }),
      await connect(b, { apiKey: await org.apiKey([Scope.SessionsRead]) }),
    ]) {
      expect(await live.request({ type: 'subscribe', session_id: '*' })).toMatchObject({
        type: 'subscribed',
      });
    }
  });

  it('leaves other requests carrying Upgrade (h2c) to the HTTP routes', async () => {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const headers = { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c' };
      request(`${a.baseUrl}/health/live`, { headers }, resolve).on('error', reject).end();
    });
    response.resume();
    expect(response.statusCode).toBe(200);
  });

  it('answers bad messages and foreign sessions with an error and keeps the connection', async () => {
    const org = await createOrganization(a, clientA);
    const stranger = await createOrganization(a, clientA);
    const foreign = await createSession(clientA, { token: await stranger.token() }, 'not yours');
    const live = await connect(b, { token: await org.token() });

    expect(await live.request({ type: 'subscribe', session_id: foreign })).toEqual({
      type: 'error',
      session_id: foreign,
      error: { code: 'NOT_FOUND', message: expect.stringContaining(foreign) },
    });
    expect(await live.request('{"type": "subscribe",')).toEqual({
      type: 'error',
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('not valid JSON') },
    });
    expect((await live.request({ type: 'watch', session_id: '*' })).error).toEqual({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('Unknown message type "watch"'),
    });
    expect((await live.request({ type: 'subscribe', session_id: 'sess_123' })).error.code).toBe(
      'INVALID_REQUEST',
    );
    expect(await live.request({ type: 'unsubscribe', session_id: '*' })).toEqual({
      type: 'unsubscribed',
      session_id: '*',
    });
    expect(live.socket.readyState).toBe(WebSocket.OPEN);

    // Frames over 64 KiB are not read: the connection closes with 1009 (message too big).
    live.send({ type: 'subscribe', session_id: 'x'.repeat(70 * 1024) });
    expect((await live.closed).code).toBe(1009);
  });

  it('forgets a closed connection and its subscriptions', async () => {
    const org = await createOrganization(a, clientA);
    const token = await org.token();
    const id = await createSession(clientA, { token }, 'cleanup check');
    const gateway = a.api.get(SessionUpdatesGateway);
    const live = await connect(a, { token });
    await live.request({ type: 'subscribe', session_id: '*' });
    await live.request({ type: 'subscribe', session_id: id });
    expect(gateway.connectionCount).toBe(1);
    expect(gateway.subscriptionCount).toBe(2);

    live.socket.close();
    await live.closed;
    await waitFor(async () =>
      gateway.connectionCount === 0 && gateway.subscriptionCount === 0 ? true : null,
    );
  });

  it('drops a connection that stops answering pings, and one whose key is revoked', async () => {
    const org = await createOrganization(a, clientA);
    const token = await org.token();
    const key = await org.apiKey([Scope.SessionsRead]);
    const silent = await connect(b, { token }, { autoPong: false });
    const revoked = await connect(b, { apiKey: key });
    const responsive = await connect(b, { token });

    const keyId = (await b.api.get(ApiKeyService).authenticate(key)).subject;
    expect((await clientA.post(`/v1/api-keys/${keyId}/revoke`, { token })).status).toBe(200);
    expect(await revoked.closed).toEqual({ code: 4401, reason: 'credential expired or revoked' });
    expect((await silent.closed).code).toBe(1006);
    // By now the responsive client has answered at least one ping.
    expect(responsive.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('closes its connections with 1001 when the instance shuts down', async () => {
    const stack = await startInstance();
    const org = await createOrganization(a, clientA);
    const live = await connect(stack, { token: await org.token() });
    await stack.close();
    expect((await live.closed).code).toBe(1001);
  });
});

describe('connections per organisation', () => {
  it('are capped per organisation and mode across instances, and a closed one frees its place', async () => {
    const capped = { WS_MAX_CONNECTIONS_PER_ORGANIZATION: '2' };
    const [one, two] = await Promise.all([startInstance(capped), startInstance(capped)]);
    try {
      const org = await createOrganization(a, clientA);
      const token = await org.token([Scope.SessionsRead]);
      const first = await connect(one, { token });
      await connect(two, { token });
      const refused = await refusal(one, { token });
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBeDefined();
      expect(refused.body.error).toMatchObject({
        code: 'RATE_LIMITED',
        details: { field: 'ws_connections', limit: 2 },
      });
      // The sandbox and other organisations count apart.
      await connect(two, { apiKey: await org.apiKey([Scope.SessionsRead], 'test') });
      const other = await createOrganization(a, clientA);
      await connect(one, { token: await other.token([Scope.SessionsRead]) });

      first.socket.close();
      await first.closed;
      const again = await waitFor(async () => {
        const socket = new WebSocket(liveUrl(two, { token }), { headers: headersOf({ token }) });
        const accepted = await new Promise<boolean>((resolve) => {
          socket.once('open', () => resolve(true));
          socket.once('error', () => resolve(false));
        });
        return accepted ? new LiveClient(socket) : null;
      });
      opened.push(again);
      expect(again.socket.readyState).toBe(WebSocket.OPEN);
    } finally {
      for (const live of opened.splice(0)) live.socket.terminate();
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('an API instance in another process', () => {
  it(
    'sends its clients the progress of a session the worker runs',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      // Same public URL as `a`, so it accepts a's tokens; it shares only PostgreSQL and Redis with this process.
      const child = await spawnApi(childEnv({ PUBLIC_URL: a.baseUrl }));
      try {
        await child.ready;
        const org = await createOrganization(a, clientA);
        const token = await org.token([Scope.SessionsRead, Scope.SessionsWrite]);
        const id = await createSession(clientA, { token }, 'across processes [slow]');
        const live = await connect({ baseUrl: child.url } as Stack, { token });
        expect(await live.request({ type: 'subscribe', session_id: id })).toMatchObject({
          type: 'subscribed',
          session_id: id,
        });
        const completed = await live.next((m) => m.type === 'session.completed');
        expect(completed).toMatchObject({ session_id: id, results: expect.any(Object) });
        const progress = live.messages.filter((m) => m.type === 'session.progress');
        expect(progress.length).toBeGreaterThan(0);
        expect(progress.every((m) => m.session_id === id)).toBe(true);
      } finally {
        for (const live of opened.splice(0)) live.socket.terminate();
        await child.kill('SIGTERM');
      }
    },
  );
});
