import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { childEnv, spawnWorker } from './support/processes.js';
import { startPrivateRedis, type PrivateRedis } from './support/redis-server.js';
import { startStack, type Stack } from './support/stack.js';
import { TEST_TIMEOUT_MS, waitFor } from './support/wait.js';

/**
 * At-least-once delivery when parts of the system die: the worker killed in
 * the middle of a burst, and Redis restarted empty. PostgreSQL holds every
 * delivery and its schedule, so both recover without losing an event.
 */
let ca: TestCertificateAuthority;
let receiver: HttpsReceiver;
let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
});
afterAll(async () => {
  await receiver?.close();
  await ca?.cleanup();
});

function webhookEnv(extra: Record<string, string> = {}) {
  return {
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
    WEBHOOK_RETRY_SCALE: '0.001',
    ...extra,
  };
}

async function subscribe(): Promise<void> {
  const created = await client.post('/v1/webhooks', {
    token,
    json: { url: receiver.url, events: ['session.created'] },
  });
  expect(created.status).toBe(201);
}

async function createSessions(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await client.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: `burst ${i}` },
    });
    expect(created.status).toBe(201);
    ids.push(created.body.session_id);
  }
  return ids;
}

/** Session ids whose session.created reached the receiver (duplicates allowed, so a set). */
function deliveredSessions(): Set<string> {
  return new Set(
    receiver.requests.map((request) => JSON.parse(request.rawBody).data.session_id as string),
  );
}

describe('a worker killed in the middle of a burst', () => {
  beforeAll(async () => {
    stack = await startStack({ worker: false, env: webhookEnv() });
    client = await TestClient.for(stack);
    org = await createOrganization(stack, client);
    token = await org.token();
  });
  afterAll(async () => {
    await stack.close();
  });

  it(
    'delivers every event at least once after a new worker starts',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      receiver.reset();
      receiver.respondWith({ status: 200, delayMs: 100 });
      await subscribe();
      const sessions = await createSessions(30);
      const env = childEnv(webhookEnv({ WEBHOOK_ENDPOINT_CONCURRENCY: '3' }));
      const first = await spawnWorker(env);
      await first.ready;
      await receiver.waitForRequests(6);
      const exit = await first.kill('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      const deliveredBeforeKill = deliveredSessions().size;
      expect(deliveredBeforeKill).toBeLessThan(sessions.length);

      const second = await spawnWorker(env);
      try {
        await second.ready;
        // Deliveries the killed worker held come back when their lease (15 s) runs out.
        await waitFor(async () => (deliveredSessions().size === sessions.length ? true : null));
        expect([...deliveredSessions()].sort()).toEqual([...sessions].sort());
      } finally {
        await second.kill('SIGTERM');
      }
    },
  );
});

describe('Redis stopped and restarted empty', () => {
  let redis: PrivateRedis;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startStack({ env: webhookEnv({ REDIS_URL: redis.url }) });
    client = await TestClient.for(stack);
    org = await createOrganization(stack, client);
    token = await org.token();
  });
  afterAll(async () => {
    await stack.close();
    await redis.close();
  });

  it('loses no event created while it was away or waiting in it', async () => {
    receiver.reset();
    await subscribe();
    const before = await createSessions(3);
    await waitFor(async () => (deliveredSessions().size === 3 ? true : null));

    receiver.respondWith({ status: 503 });
    const retried = await createSessions(2);
    await receiver.waitForRequests(5);
    await redis.stop('kill');
    const during = await createSessions(3);
    receiver.respondWith({ status: 200 });
    await redis.start();

    await waitFor(async () => (deliveredSessions().size === 8 ? true : null));
    expect([...deliveredSessions()].sort()).toEqual([...before, ...retried, ...during].sort());
  });
});
