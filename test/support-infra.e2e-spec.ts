import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createTestCertificateAuthority,
  createUntrustedLeafCertificate,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { childEnv, spawnApi, spawnWorker } from './support/processes.js';
import { ping, startPrivateRedis } from './support/redis-server.js';
import { DEADLINE_MS } from './support/wait.js';

/** The test-support pieces themselves: HTTPS receiver, child-process services, private Redis. */

function post(
  url: string,
  body: string,
  options: RequestOptions,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', ...options }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.once('timeout', () => req.destroy(new Error('client timeout')));
    req.once('error', reject);
    req.end(body);
  });
}

describe('HTTPS webhook receiver', () => {
  let ca: TestCertificateAuthority;
  let trustedCa: Buffer;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    ca = await createTestCertificateAuthority();
    trustedCa = await readFile(ca.caFile);
    receiver = await startHttpsReceiver({ certificate: ca.leaf });
  });
  afterAll(async () => {
    await receiver?.close();
    await ca?.cleanup();
  });

  it('is reached by a client trusting only the CA file, and records the raw body and headers', async () => {
    const body = '{"type":"session.completed",  "id":"ses_1"}';
    const response = await post(receiver.url, body, {
      ca: trustedCa,
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
    });

    expect(response).toEqual({ status: 200, body: '{"ok":true}' });
    const [received] = await receiver.waitForRequests(1);
    expect(received).toMatchObject({ method: 'POST', path: '/hooks', rawBody: body });
    expect(received!.headers['webhook-id']).toBe('msg_1');
    expect(received!.respondedAt).toBeInstanceOf(Date);
  });

  it('scripts responses with delays and counts concurrent requests', async () => {
    receiver.reset();
    receiver.respondWith((_request, index) => ({
      status: 503,
      body: `slow ${index}`,
      delayMs: 200,
    }));
    const responses = await Promise.all(
      [1, 2, 3].map((n) => post(`${receiver.url}?n=${n}`, `${n}`, { ca: trustedCa, agent: false })),
    );

    expect(responses.map((r) => r.status)).toEqual([503, 503, 503]);
    expect(receiver.maxInFlight).toBe(3);
    expect(receiver.inFlight).toBe(0);
    expect(receiver.requests.map((r) => r.rawBody).sort()).toEqual(['1', '2', '3']);
  });

  it('records a request whose client gave up before the delayed response', async () => {
    receiver.reset();
    receiver.respondWith({ delayMs: 1_000 });
    const gaveUp = post(receiver.url, 'late', { ca: trustedCa, agent: false, timeout: 100 });
    const [request] = await receiver.waitForRequests(1);
    await expect(gaveUp).rejects.toThrow('client timeout');
    await vi.waitFor(() => expect(request!.clientAborted).toBe(true), { timeout: DEADLINE_MS });
    expect(request!.respondedAt).toBeNull();
    expect(receiver.inFlight).toBe(0);
  });

  it('serves a certificate of another CA that a client trusting only our CA refuses', async () => {
    const untrusted = await startHttpsReceiver({
      certificate: await createUntrustedLeafCertificate(),
    });
    try {
      await expect(post(untrusted.url, '{}', { ca: trustedCa })).rejects.toMatchObject({
        code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      });
      expect(untrusted.requests).toHaveLength(0);
    } finally {
      await untrusted.close();
    }
  });
});

describe('worker as a child process', () => {
  it('becomes ready, dies by SIGKILL, and starts again', async () => {
    const env = childEnv();
    const first = await spawnWorker(env);
    await first.ready;
    expect(first.readyMs).toBeGreaterThan(0);

    await expect(first.kill('SIGKILL')).resolves.toEqual({ code: null, signal: 'SIGKILL' });
    await expect(fetch(`${first.url}/health/live`)).rejects.toThrow();

    const second = await spawnWorker({ ...env, WORKER_HEALTH_PORT: first.env.WORKER_HEALTH_PORT! });
    try {
      await second.ready;
      const live = await fetch(`${second.url}/health/ready`);
      expect(live.status).toBe(200);
    } finally {
      await second.kill('SIGKILL');
    }
  });
});

describe('a child service that fails to start', () => {
  /** What `ready` rejected with. */
  const failure = (ready: Promise<void>) =>
    ready.then(
      () => expect.fail('the child became ready'),
      (reason: Error) => reason.message,
    );

  it('is reported, when it exits first, with the end of what it wrote', async () => {
    const preload = new URL('./fixtures/processes/exits-at-start.mjs', import.meta.url).href;
    const api = await spawnApi(childEnv({ NODE_OPTIONS: `--import ${preload}` }));
    const message = await failure(api.ready);
    expect(message).toMatch(
      /^api exited \(code 3, signal null\) before it was ready; the end of its output \(stdout and stderr\):\n/,
    );
    // Its last lines, not all 201; stdout and stderr both kept.
    expect(message).toContain('exits-at-start line 200\n');
    expect(message).not.toContain('exits-at-start line 100\n');
    expect(api.output()).toContain('exits-at-start: this one on stderr\n');
  });

  it('is killed at its readiness deadline, and the error says what it waited for', async () => {
    // No API is ready within 1 ms of its start.
    const api = await spawnApi(childEnv(), { readyTimeoutMs: 1 });
    const message = await failure(api.ready);
    expect(message).toMatch(
      /^api was not ready within 1 ms \(no 200 from http:\/\/127\.0\.0\.1:\d+\/health\/live\); (it wrote nothing to stdout or stderr|(its output|the end of its output) \(stdout and stderr\):\n)/,
    );
    expect(await api.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });
});

function connectTo(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

describe('private redis-server', () => {
  it('can be taken away and brought back on the same port', async () => {
    const redis = await startPrivateRedis();
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    client.on('error', () => undefined);
    try {
      await client.connect();
      expect(await client.ping()).toBe('PONG');

      await redis.stop('kill');
      expect(await ping(redis.port)).toBe(false);
      await expect(connectTo(redis.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      await redis.start();
      expect(await client.ping()).toBe('PONG'); // the same client reconnects

      await redis.stop('shutdown');
      expect(redis.running).toBe(false);
      await redis.start();
      expect(await ping(redis.port)).toBe(true);
    } finally {
      client.disconnect();
      await redis.close();
    }
  });
});
