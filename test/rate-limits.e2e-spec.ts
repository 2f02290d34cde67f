import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { childEnv, spawnApi, type ChildService } from './support/processes.js';
import { startPrivateRedis } from './support/redis-server.js';
import { startStack, testEnv, type Stack } from './support/stack.js';

// Windows scaled down so a test can wait one out: minute 3 s, hour 180 s, day 4,320 s.
const SCALE = '0.05';
const MINUTE_S = 3;
const HOUR_S = 180;
const DAY_S = 4320;

let stack: Stack;
let client: TestClient;

beforeAll(async () => {
  stack = await startStack({ worker: false, env: { RATE_LIMIT_WINDOW_SCALE: SCALE } });
  client = await TestClient.for(stack);
});
afterAll(() => stack?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('plan and tier limits', () => {
  it('reports the window closest to exhaustion on every response, with the IETF fields', async () => {
    const org = await createOrganization(stack, client, 'live', 'free', { tier: 'basic' });
    const apiKey = await org.apiKey();
    const before = Math.floor(Date.now() / 1000);
    const first = await client.get('/v1/sessions', { apiKey });
    expect(first.status).toBe(200);
    // free: 60 a minute; basic: 100 an hour, 1,000 a day. The minute has least left (59/60).
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(before + 1);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + MINUTE_S);
    expect(first.headers.get('ratelimit-policy')).toBe(
      `"minute";q=60;w=${MINUTE_S}, "hour";q=100;w=${HOUR_S}, "day";q=1000;w=${DAY_S}`,
    );
    expect(first.headers.get('ratelimit')).toMatch(/^"minute";r=59;t=[1-3]$/);
  });

  it('answers 429 once the minute is used up, then serves again when it starts afresh', async () => {
    const org = await createOrganization(stack, client, 'live', 'enterprise', {
      tier: 'custom',
      requestsPerMinute: 3,
    });
    const apiKey = await org.apiKey();
    await waitForFreshWindow(apiKey);
    for (let i = 0; i < 3; i++)
      expect((await client.get('/v1/sessions', { apiKey })).status).toBe(200);
    const refused = await client.get('/v2/sessions', { apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { field: 'requests_per_minute', limit: 3, window: 'minute' },
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(MINUTE_S);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    await sleep(retryAfter * 1000 + 200);
    expect((await client.get('/v1/sessions', { apiKey })).status).toBe(200);
  });

  it('enforces the hourly quota, announcing 80 % of it once', async () => {
    const org = await createOrganization(stack, client, 'live', 'pro', { tier: 'basic' });
    const apiKey = await org.apiKey();
    for (let i = 0; i < 100; i++) {
      const response = await client.get('/v1/sessions?limit=1', { apiKey });
      expect(response.status, `request ${i + 1}`).toBe(200);
    }
    const refused = await client.get('/v1/sessions', { apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body.error.details).toMatchObject({
      field: 'requests_per_hour',
      limit: 100,
      window: 'hour',
    });
    const events = await stack.api
      .get(DataSource)
      .query(
        `SELECT data FROM events WHERE organization_id = $1 AND type = 'account.usage_threshold_reached'`,
        [org.organizationId],
      );
    expect(events).toEqual([
      {
        data: expect.objectContaining({
          quota: 'requests_per_hour',
          limit: 100,
          used: 80,
          threshold_percent: 80,
        }),
      },
    ]);
  });

  it('counts per mode: the sandbox has its own windows', async () => {
    const org = await createOrganization(stack, client, 'live', 'enterprise', {
      tier: 'custom',
      requestsPerMinute: 1,
    });
    const live = await org.apiKey();
    const sandbox = await org.apiKey(undefined, 'test');
    await waitForFreshWindow(live);
    expect((await client.get('/v1/sessions', { apiKey: live })).status).toBe(200);
    expect((await client.get('/v1/sessions', { apiKey: live })).status).toBe(429);
    expect((await client.get('/v1/sessions', { apiKey: sandbox })).status).toBe(200);
  });

  /** Waits until the key's minute window has just started, so a test's requests fall in one window. */
  async function waitForFreshWindow(apiKey: string): Promise<void> {
    const probe = await client.get('/v1/sessions', { apiKey });
    const wait =
      Number(probe.headers.get('retry-after') ?? 0) ||
      Number(/t=(\d+)/.exec(probe.headers.get('ratelimit') ?? '')?.[1] ?? 0);
    await sleep(wait * 1000 + 100);
  }
});

describe('shared by every API instance', () => {
  let second: ChildService;
  beforeAll(async () => {
    second = await spawnApi(childEnv({ RATE_LIMIT_WINDOW_SCALE: SCALE }));
    await second.ready;
  });
  afterAll(() => second?.kill('SIGTERM'));

  it('counts requests to two API processes against one limit', async () => {
    const org = await createOrganization(stack, client, 'live', 'enterprise', {
      tier: 'custom',
      requestsPerMinute: 4,
    });
    const apiKey = await org.apiKey();
    const other = await TestClient.for({ baseUrl: second.url });
    const statuses: number[] = [];
    for (const target of [client, other, client, other, other, client]) {
      statuses.push((await target.get('/v1/sessions', { apiKey })).status);
    }
    // The org's first request opens its 3 s window; all six fall in it.
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses.slice(4)).toEqual([429, 429]);
  });
});

describe('when Redis cannot count', () => {
  it('allows requests without limit headers by default, and refuses them with 503 when told to deny', async () => {
    const redis = await startPrivateRedis();
    const allowing = await startStack({ worker: false, env: { REDIS_URL: redis.url } });
    const denying = await spawnApi(
      testEnv({ REDIS_URL: redis.url, RATE_LIMIT_ON_REDIS_FAILURE: 'deny' }),
    );
    try {
      await denying.ready;
      const allowingClient = await TestClient.for(allowing);
      const denyingClient = await TestClient.for({ baseUrl: denying.url });
      const org = await createOrganization(allowing, allowingClient);
      const apiKey = await org.apiKey();
      expect(
        (await allowingClient.get('/v1/sessions', { apiKey })).headers.get('x-ratelimit-limit'),
      ).toBe('6000');
      await redis.stop('kill');
      const allowed = await allowingClient.get('/v1/sessions', { apiKey });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('x-ratelimit-limit')).toBeNull();
      const denied = await denyingClient.get('/v1/sessions', { apiKey });
      expect(denied.status).toBe(503);
      expect(denied.body.error.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await denying.kill('SIGTERM');
      await allowing.close();
      await redis.stop('kill').catch(() => undefined);
    }
  });
});
