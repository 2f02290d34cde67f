import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scope } from '#common';
import { Sql } from '#database';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { REVOCATION_DEADLINE_MS } from './support/wait.js';

let stack: Stack;
let other: Stack;
let client: TestClient;
let otherClient: TestClient;
let org: TestOrganization;
let token: string;

// Two API instances on one database and Redis, as in a deployment with several copies.
beforeAll(async () => {
  [stack, other] = await Promise.all([
    startStack({ worker: false }),
    startStack({ worker: false }),
  ]);
  client = await TestClient.for(stack);
  otherClient = await TestClient.for(other);
  org = await createOrganization(stack, client);
  token = await org.token();
});
afterAll(async () => {
  await stack?.close();
  await other?.close();
});

async function createKey(name = 'lifecycle', scopes: string[] = [Scope.SessionsRead]) {
  const response = await client.post('/v1/api-keys', { token, json: { name, scopes } });
  expect(response.status).toBe(201);
  return response.body as { id: string; key: string; prefix: string };
}

const probe = '/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd';
/** 404 means the key was accepted (the session does not exist); 401 means refused. */
async function statusWith(apiKey: string, on = client) {
  return (await on.get(probe, { apiKey })).status;
}

describe('listing and reading API keys', () => {
  it('lists the organisation’s keys newest first, never the key itself, with v1 paging', async () => {
    const fresh = await createOrganization(stack, client);
    const freshToken = await fresh.token();
    const first = await client.post('/v1/api-keys', {
      token: freshToken,
      json: { name: 'first', scopes: [Scope.SessionsRead] },
    });
    const second = await client.post('/v1/api-keys', {
      token: freshToken,
      json: { name: 'second', scopes: [Scope.SessionsRead] },
    });
    const page = await client.get('/v1/api-keys?limit=1', { token: freshToken });
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 0, has_more: true });
    expect(page.body.results.map((k: { id: string }) => k.id)).toEqual([second.body.id]);
    const rest = await client.get('/v1/api-keys?limit=1&offset=1', { token: freshToken });
    expect(rest.body).toMatchObject({
      has_more: false,
      results: [{ id: first.body.id, name: 'first' }],
    });
    expect(JSON.stringify(page.body)).not.toContain(second.body.key);

    const read = await client.get(`/v1/api-keys/${first.body.id}`, { token: freshToken });
    expect(read.body).toMatchObject({
      id: first.body.id,
      prefix: first.body.prefix,
      scopes: [Scope.SessionsRead],
    });
    expect(read.body).not.toHaveProperty('key');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['colour=red', 'colour'],
  ])('refuses ?%s naming %s', async (query, field) => {
    const response = await client.get(`/v1/api-keys?${query}`, { token });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe(field);
  });

  it('answers 404 for another organisation’s key', async () => {
    const mine = await createKey();
    const stranger = await (await createOrganization(stack, client)).token();
    for (const path of [`/v1/api-keys/${mine.id}`]) {
      expect((await client.get(path, { token: stranger })).status).toBe(404);
    }
    expect((await client.post(`/v1/api-keys/${mine.id}/revoke`, { token: stranger })).status).toBe(
      404,
    );
    expect(
      (await client.post(`/v1/api-keys/${mine.id}/rotate`, { token: stranger, json: {} })).status,
    ).toBe(404);
    expect(await statusWith(mine.key)).toBe(404);
  });
});

describe('revoking', () => {
  it('stops the key at once on every API instance, even where it was cached', async () => {
    const { id, key } = await createKey();
    expect(await statusWith(key)).toBe(404);
    expect(await statusWith(key, otherClient)).toBe(404);

    const revoked = await client.post(`/v1/api-keys/${id}/revoke`, { token });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();

    expect(await statusWith(key)).toBe(401);
    await expect
      .poll(() => statusWith(key, otherClient), { timeout: REVOCATION_DEADLINE_MS, interval: 20 })
      .toBe(401);
    const again = await client.post(`/v1/api-keys/${id}/revoke`, { token });
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
  });

  it('can be done by an API key holding organizations:write (a leaked key revoking itself)', async () => {
    const { id, key } = await createKey('self', [Scope.OrganizationsWrite]);
    expect((await client.post(`/v1/api-keys/${id}/revoke`, { apiKey: key })).status).toBe(200);
    expect((await client.get('/v1/api-keys', { apiKey: key })).status).toBe(401);
  });
});

describe('rotating', () => {
  it('issues a replacement and keeps the old key working for the overlap', async () => {
    const old = await createKey('rotating', [Scope.SessionsRead]);
    const before = Date.now();
    const rotated = await client.post(`/v1/api-keys/${old.id}/rotate`, {
      token,
      json: { overlap_seconds: 3600 },
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({
      name: 'rotating',
      scopes: [Scope.SessionsRead],
      previous: { id: old.id, revoked_at: null },
    });
    expect(rotated.body.key).not.toBe(old.key);
    const oldEnds = new Date(rotated.body.previous.expires_at).getTime();
    expect(oldEnds).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(oldEnds).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
    expect(await statusWith(rotated.body.key)).toBe(404);
    expect(await statusWith(old.key)).toBe(404);
    expect(await statusWith(old.key, otherClient)).toBe(404);
  });

  it('with overlap 0 stops the old key at once, everywhere', async () => {
    const old = await createKey();
    expect(await statusWith(old.key, otherClient)).toBe(404);
    const rotated = await client.post(`/v1/api-keys/${old.id}/rotate`, {
      token,
      json: { overlap_seconds: 0 },
    });
    expect(rotated.body.previous.revoked_at).not.toBeNull();
    expect(await statusWith(old.key)).toBe(401);
    await expect
      .poll(() => statusWith(old.key, otherClient), {
        timeout: REVOCATION_DEADLINE_MS,
        interval: 20,
      })
      .toBe(401);
    expect(await statusWith(rotated.body.key)).toBe(404);
  });

  it('defaults to a 24-hour overlap', async () => {
    const old = await createKey();
    const rotated = await client.post(`/v1/api-keys/${old.id}/rotate`, { token, json: {} });
    const hours = (new Date(rotated.body.previous.expires_at).getTime() - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
  });

  it('refuses revoked keys, bad overlaps and API-key callers', async () => {
    const old = await createKey();
    await client.post(`/v1/api-keys/${old.id}/revoke`, { token });
    const revoked = await client.post(`/v1/api-keys/${old.id}/rotate`, { token, json: {} });
    expect(revoked.status).toBe(400);
    const live = await createKey();
    for (const overlap of [-1, 604801, 1.5, '60']) {
      const response = await client.post(`/v1/api-keys/${live.id}/rotate`, {
        token,
        json: { overlap_seconds: overlap },
      });
      expect(response.status).toBe(400);
      expect(response.body.error.details.field).toBe('overlap_seconds');
    }
    const apiKey = await org.apiKey();
    expect((await client.post(`/v1/api-keys/${live.id}/rotate`, { apiKey, json: {} })).status).toBe(
      403,
    );
  });
});

describe('what a caller may do with keys stronger than itself', () => {
  it('a test-mode caller creates only test-mode keys; a live caller chooses', async () => {
    const sandbox = await createOrganization(stack, client, 'test');
    const testToken = await sandbox.token();
    const live = await client.post('/v1/api-keys', {
      token: testToken,
      json: { name: 'escape', scopes: [Scope.SessionsRead], mode: 'live' },
    });
    expect(live.status).toBe(403);
    expect(live.body.error).toMatchObject({ code: 'FORBIDDEN', details: { field: 'mode' } });
    const own = await client.post('/v1/api-keys', {
      token: testToken,
      json: { name: 'sandbox', scopes: [Scope.SessionsRead] },
    });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ mode: 'test', key: expect.stringMatching(/^sk_test_/) });

    const chosen = await client.post('/v1/api-keys', {
      token,
      json: { name: 'for the sandbox', scopes: [Scope.SessionsRead], mode: 'test' },
    });
    expect(chosen.body).toMatchObject({ mode: 'test', key: expect.stringMatching(/^sk_test_/) });
  });

  it('rotating or revoking another key needs every scope it holds; a key may still revoke itself', async () => {
    const admin = await createKey('admin', [Scope.OrganizationsWrite, Scope.SessionsDelete]);
    const narrow = await org.token([Scope.OrganizationsWrite]);
    for (const response of [
      await client.post(`/v1/api-keys/${admin.id}/rotate`, { token: narrow, json: {} }),
      await client.post(`/v1/api-keys/${admin.id}/revoke`, { token: narrow }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({
        code: 'FORBIDDEN',
        details: { field: 'key_id', required_scopes: [Scope.SessionsDelete] },
      });
      expect(response.text).not.toMatch(/sk_live_/);
    }
    expect(await statusWith(admin.key)).not.toBe(401);
    const lesser = await createKey('lesser', [Scope.OrganizationsWrite]);
    expect(
      (await client.post(`/v1/api-keys/${admin.id}/revoke`, { apiKey: lesser.key })).status,
    ).toBe(403);
    expect(
      (await client.post(`/v1/api-keys/${admin.id}/revoke`, { apiKey: admin.key })).status,
    ).toBe(200);
  });
});

describe('the audit log', () => {
  /** The one audit event of the request that answered `response` (by its X-Request-Id). */
  async function auditOf(response: ApiResponse) {
    const requestId = response.headers.get('x-request-id');
    const rows = await stack.api
      .get(Sql)
      .rows<Record<string, any>>('SELECT * FROM audit_events WHERE request_id = $1', [requestId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      organization_id: org.organizationId,
      mode: 'live',
      request_id: requestId,
      ip: expect.any(String),
      user_agent: expect.any(String),
    });
    return rows[0]!;
  }

  it('records creation, rotation and revocation, by whom, never the key', async () => {
    const created = await client.post('/v1/api-keys', {
      token,
      json: { name: 'audited', scopes: [Scope.SessionsRead, Scope.OrganizationsWrite] },
    });
    const creation = await auditOf(created);
    expect(creation).toMatchObject({
      action: 'api_key.created',
      actor_type: 'client',
      actor_id: org.clientId,
      target_type: 'api_key',
      target_id: created.body.id,
      changes: {
        name: { before: null, after: 'audited' },
        scopes: { before: null, after: [Scope.SessionsRead, Scope.OrganizationsWrite] },
        mode: { before: null, after: 'live' },
      },
    });
    expect(JSON.stringify(creation)).not.toContain(created.body.key);

    const rotated = await client.post(`/v1/api-keys/${created.body.id}/rotate`, {
      token,
      json: { overlap_seconds: 60 },
    });
    const rotation = await auditOf(rotated);
    expect(rotation).toMatchObject({
      action: 'api_key.rotated',
      actor_type: 'client',
      actor_id: org.clientId,
      target_type: 'api_key',
      target_id: created.body.id,
      changes: { expires_at: { before: null, after: rotated.body.previous.expires_at } },
      details: { new_key_id: rotated.body.id, overlap_seconds: 60 },
    });
    expect(JSON.stringify(rotation)).not.toContain(created.body.key);
    expect(JSON.stringify(rotation)).not.toContain(rotated.body.key);

    // The new key revokes itself: the actor is the key.
    const revoked = await client.post(`/v1/api-keys/${rotated.body.id}/revoke`, {
      apiKey: rotated.body.key,
    });
    const revocation = await auditOf(revoked);
    expect(revocation).toMatchObject({
      action: 'api_key.revoked',
      actor_type: 'api_key',
      actor_id: rotated.body.id,
      target_type: 'api_key',
      target_id: rotated.body.id,
      changes: { revoked_at: { before: null, after: revoked.body.revoked_at } },
    });
    expect(JSON.stringify(revocation)).not.toContain(rotated.body.key);
  });

  it('records nothing for a refused request', async () => {
    const refused = await client.post('/v1/api-keys', {
      token: await org.token([Scope.OrganizationsWrite]),
      json: { name: 'too strong', scopes: [Scope.SessionsDelete] },
    });
    expect(refused.status).toBe(400);
    const rows = await stack.api
      .get(Sql)
      .rows('SELECT 1 FROM audit_events WHERE request_id = $1', [
        refused.headers.get('x-request-id'),
      ]);
    expect(rows).toEqual([]);
  });
});
