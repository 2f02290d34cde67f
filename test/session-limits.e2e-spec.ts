import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrganizationLimitsCache } from '#organizations';
import { SessionsService } from '#sessions';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

// No worker: sessions stay initiated, so the running count is exactly what the test created.
let stack: Stack;
let client: TestClient;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
});
afterAll(() => stack?.close());

const SESSION = { type: 'dowsing', target: 'Limit check' };

describe('concurrent sessions by plan', () => {
  it('lets a free organisation run 5 sessions, answers the 6th with 429 naming the limit', async () => {
    const org = await createOrganization(stack, client, 'live', 'free');
    const token = await org.token();
    const created = await Promise.all(
      Array.from({ length: 5 }, () => client.post('/v1/sessions', { token, json: SESSION })),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);

    const refused = await client.post('/v2/sessions/create', { token, json: SESSION });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { field: 'concurrent_sessions', limit: 5, plan: 'free' },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const listed = await client.get('/v1/sessions', { token });
    expect(listed.body.total).toBe(5);

    // A finished session frees its place.
    await client.post(`/v1/sessions/${created[0]!.body.session_id}/cancel`, { token });
    expect((await client.post('/v1/sessions', { token, json: SESSION })).status).toBe(201);
    // The sandbox counts on its own.
    const sandbox = await org.apiKey(undefined, 'test');
    expect((await client.post('/v1/sessions', { apiKey: sandbox, json: SESSION })).status).toBe(
      201,
    );
  });

  it('holds under a burst: of 8 concurrent creates exactly the limit succeed', async () => {
    const org = await createOrganization(stack, client, 'live', 'free');
    const token = await org.token();
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => client.post('/v1/sessions', { token, json: SESSION })),
    );
    expect(burst.filter((r) => r.status === 201)).toHaveLength(5);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(3);
  });

  it('refuses a whole batch that would go over, creating none of it', async () => {
    const org = await createOrganization(stack, client, 'live', 'pro');
    const token = await org.token();
    const batch = await client.post('/v1/batch/sessions', {
      token,
      json: { sessions: Array.from({ length: 51 }, () => SESSION) },
    });
    expect(batch.status).toBe(429);
    expect(batch.body.error.details).toMatchObject({ limit: 50, plan: 'pro' });
    const listed = await client.get('/v2/sessions', { token });
    expect(listed.body.pagination.total).toBe(0);
  });
});

describe('the concurrency check under load', () => {
  it('never deadlocks the pool: more creates than connections, the organisation’s limits not cached', async () => {
    // Two connections, ten creates at once, the limits cache empty: each create used to hold a
    // connection while its cache miss waited for another, and none ever came free.
    const small = await startStack({ worker: false, env: { DATABASE_POOL_MAX: '2' } });
    try {
      const org = await createOrganization(small, client);
      const tenant = { organizationId: org.organizationId, mode: 'live' as const };
      small.api.get(OrganizationLimitsCache).forget(org.organizationId);
      const sessions = small.api.get(SessionsService);
      const created = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          sessions.create(
            tenant,
            {
              type: 'dowsing',
              target: `burst ${i}`,
              modality: null,
              durationMinutes: 30,
              privacyLevel: 'private',
            },
            null,
          ),
        ),
      );
      expect(new Set(created.map((session) => session.id)).size).toBe(10);
    } finally {
      await small.close();
    }
  });
});
