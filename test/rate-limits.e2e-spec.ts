import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { RedisService } from '#queue';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { childEnv, spawnApi, type ChildService } from './support/processes.js';
import { startPrivateRedis } from './support/redis-server.js';
import { startStack, type Stack } from './support/stack.js';
import { DEADLINE_MS, waitFor } from './support/wait.js';

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

/** Sends `probe` until it answers `status`; the statuses before it are returned for checking. */
async function untilStatus(
  status: number,
  probe: () => Promise<{ status: number }>,
  timeoutMs: number,
): Promise<number[]> {
  const before: number[] = [];
  await waitFor(
    async () => {
      const response = await probe();
      if (response.status === status) return true;
      before.push(response.status);
      return null;
    },
    timeoutMs,
    100,
  );
  return before;
}

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
    // A new organisation: its first request opens its minute window.
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
    // Refused until the window starts afresh, then served (the deadline leaves room for a slow machine).
    const meanwhile = await untilStatus(
      200,
      () => client.get('/v1/sessions', { apiKey }),
      DEADLINE_MS,
    );
    expect(meanwhile.filter((status) => status !== 429)).toEqual([]);
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
          organization_id: toPublicId('organization', org.organizationId),
        }),
      },
    ]);
  });

  it('names the organisation by its public id in the listed threshold event', async () => {
    const org = await createOrganization(stack, client, 'live', 'enterprise', {
      tier: 'custom',
      requestsPerHour: 10,
    });
    const apiKey = await org.apiKey();
    // The eighth request of ten reaches 80 %; the event is written beside the request.
    for (let i = 0; i < 8; i++) {
      expect((await client.get('/v1/sessions?limit=1', { apiKey })).status).toBe(200);
    }
    const sql = stack.api.get(DataSource);
    await waitFor(async () => {
      const rows: unknown[] = await sql.query(
        `SELECT 1 FROM events WHERE organization_id = $1 AND type = 'account.usage_threshold_reached'`,
        [org.organizationId],
      );
      return rows.length > 0 ? true : null;
    });
    const listed = await client.get('/v2/events?type=account.usage_threshold_reached', { apiKey });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].data).toMatchObject({
      organization_id: toPublicId('organization', org.organizationId),
      quota: 'requests_per_hour',
      limit: 10,
      used: 8,
    });
    expect(listed.body.data[0].data.organization_id).toMatch(/^org_[0-9a-z]{26}$/);
  });

  it('counts per mode: the sandbox has its own windows', async () => {
    const org = await createOrganization(stack, client, 'live', 'enterprise', {
      tier: 'custom',
      requestsPerMinute: 1,
    });
    const live = await org.apiKey();
    const sandbox = await org.apiKey(undefined, 'test');
    expect((await client.get('/v1/sessions', { apiKey: live })).status).toBe(200);
    expect((await client.get('/v1/sessions', { apiKey: live })).status).toBe(429);
    expect((await client.get('/v1/sessions', { apiKey: sandbox })).status).toBe(200);
  });
});

describe('shared by every API instance', () => {
  let second: ChildService;
  beforeAll(async () => {
    second = await spawnApi(childEnv({ RATE_LIMIT_WINDOW_SCALE: SCALE }));
    await second.ready;
  });
  afterAll(() => second?.kill('SIGTERM'));

  it('counts requests to two API processes against one limit', async () => {
    // The hourly quota: its window (180 s here) holds all six requests however slow the machine.
    const org = await createOrganization(stack, client, 'live', 'enterprise', {
      tier: 'custom',
      requestsPerHour: 4,
    });
    const apiKey = await org.apiKey();
    const other = await TestClient.for({ baseUrl: second.url });
    const responses = [];
    for (const target of [client, other, client, other, other, client]) {
      responses.push(await target.get('/v1/sessions', { apiKey }));
    }
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(responses[4]!.body.error.details).toMatchObject({
      field: 'requests_per_hour',
      limit: 4,
    });
  });
});

describe('when Redis cannot count', () => {
  it('allows requests without limit headers by default, and refuses them with 503 when told to deny', async () => {
    const redis = await startPrivateRedis();
    const allowing = await startStack({ worker: false, env: { REDIS_URL: redis.url } });
    const denying = await startStack({
      worker: false,
      env: { REDIS_URL: redis.url, RATE_LIMIT_ON_REDIS_FAILURE: 'deny' },
    });
    try {
      const allowingClient = await TestClient.for(allowing);
      const denyingClient = await TestClient.for(denying);
      const org = await createOrganization(allowing, allowingClient);
      const apiKey = await org.apiKey();
      expect(
        (await allowingClient.get('/v1/sessions', { apiKey })).headers.get('x-ratelimit-limit'),
      ).toBe('6000');
      await redis.stop('kill');
      // Both APIs have seen their Redis connection go, so the next counts fail.
      for (const api of [allowing, denying]) {
        const redisClient = api.api.get(RedisService).client;
        await waitFor(async () => (redisClient.status === 'ready' ? null : true));
      }
      const allowed = await allowingClient.get('/v1/sessions', { apiKey });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('x-ratelimit-limit')).toBeNull();
      const denied = await denyingClient.get('/v1/sessions', { apiKey });
      expect(denied.status).toBe(503);
      expect(denied.body.error.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await denying.close();
      await allowing.close();
      await redis.close();
    }
  });
});
