import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES, parsePublicId, toPublicId } from '#common';
import { Sql } from '#database';
import { auditOf as auditOfRequest, type AuditRow } from './support/audit.js';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization } from './support/factories.js';
import {
  BOOTSTRAP_CLIENT_ID,
  BOOTSTRAP_CLIENT_SECRET,
  startStack,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let client: TestClient;
let operatorToken: string;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  const response = await client.post('/oauth2/token', {
    form: {
      grant_type: 'client_credentials',
      client_id: BOOTSTRAP_CLIENT_ID,
      client_secret: BOOTSTRAP_CLIENT_SECRET,
    },
  });
  operatorToken = response.body.access_token;
});
afterAll(() => stack?.close());

/** The audit events a response's request recorded, oldest first. */
function auditOf(response: ApiResponse): Promise<AuditRow[]> {
  return auditOfRequest(stack.api.get(Sql), response);
}

describe('v2 /enterprise/organizations', () => {
  it('lets the operator create an organisation whose admin key has every scope, in live mode', async () => {
    const created = await client.post('/v2/enterprise/organizations', {
      token: operatorToken,
      json: { name: 'Acme Research', plan: 'pro', tier: 'professional' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^org_/),
      name: 'Acme Research',
      plan: 'pro',
      tier: 'professional',
      is_operator: false,
    });
    const adminKey: string = created.body.admin_api_key;
    expect(adminKey).toMatch(/^sk_live_/);
    // In the new organisation's own log: created by the operator; its admin key never kept.
    const events = await auditOf(created);
    expect(events.find((event) => event.action === 'organization.created')).toEqual({
      organization_id: parsePublicId('organization', created.body.id),
      mode: 'live',
      action: 'organization.created',
      actor_type: 'client',
      actor_id: BOOTSTRAP_CLIENT_ID,
      target_type: 'organization',
      target_id: created.body.id,
      changes: {
        name: { before: null, after: 'Acme Research' },
        plan: { before: null, after: 'pro' },
        tier: { before: null, after: 'professional' },
      },
      details: null,
    });
    expect(JSON.stringify(events)).not.toContain(adminKey);

    const keys = await client.get('/v1/api-keys', { apiKey: adminKey });
    expect(keys.body.results).toEqual([
      expect.objectContaining({ name: 'Admin key', scopes: [...ALL_SCOPES], mode: 'live' }),
    ]);
    const own = await client.get('/v2/enterprise/organizations', { apiKey: adminKey });
    expect(own.body.data).toEqual([expect.objectContaining({ id: created.body.id })]);
    const session = await client.post('/v1/sessions', {
      apiKey: adminKey,
      json: { type: 'dowsing', target: 'first work' },
    });
    expect(session.status).toBe(201);
  });

  it('defaults a new organisation to the free plan and the basic tier', async () => {
    const created = await client.post('/v2/enterprise/organizations', {
      token: operatorToken,
      json: { name: 'Defaults Ltd' },
    });
    expect(created.body).toMatchObject({ plan: 'free', tier: 'basic', max_concurrent_sessions: 5 });
  });

  it('takes an agreed concurrency limit above the plan’s', async () => {
    const created = await client.post('/v2/enterprise/organizations', {
      token: operatorToken,
      json: { name: 'Big Lab', plan: 'enterprise', max_concurrent_sessions: 2000 },
    });
    expect(created.body).toMatchObject({ plan: 'enterprise', max_concurrent_sessions: 2000 });
    const refused = await client.post('/v2/enterprise/organizations', {
      token: operatorToken,
      json: { name: 'Big Lab 2', max_concurrent_sessions: 0 },
    });
    expect(refused.body.error.details.field).toBe('max_concurrent_sessions');
  });

  it('shows the operator every organisation, page by page with a keyset cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    let total: number;
    do {
      const query: string = cursor ? `?per_page=5&cursor=${cursor}` : '?per_page=5';
      const response = await client.get(`/v2/enterprise/organizations${query}`, {
        token: operatorToken,
      });
      expect(response.status).toBe(200);
      page += 1;
      expect(response.body.pagination).toMatchObject({ page, per_page: 5, has_prev: page > 1 });
      total = response.body.pagination.total;
      seen.push(...response.body.data.map((o: { id: string }) => o.id));
      cursor = response.body.pagination.next_cursor;
      expect(response.body.pagination.has_next).toBe(cursor !== null);
    } while (cursor !== null);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(page).toBe(Math.ceil(total / 5));
  });

  it('shows any other organisation only itself, and refuses it the create', async () => {
    const other = await createOrganization(stack, client);
    const token = await other.token();
    const listed = await client.get('/v2/enterprise/organizations', { token });
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.pagination).toMatchObject({
      total: 1,
      page: 1,
      has_next: false,
      next_cursor: null,
    });
    const refused = await client.post('/v2/enterprise/organizations', {
      token,
      json: { name: 'Not allowed' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
  });

  it('lets the operator change plan, tier and agreed limits, announcing subscription changes', async () => {
    const created = await client.post('/v2/enterprise/organizations', {
      token: operatorToken,
      json: { name: 'Growing Lab' },
    });
    const id = created.body.id;
    const adminKey = created.body.admin_api_key;
    const before = await client.get('/v1/sessions', { apiKey: adminKey });
    expect(before.headers.get('ratelimit-policy')).toContain('"minute";q=60;');

    const upgraded = await client.patch(`/v2/enterprise/organizations/${id}`, {
      token: operatorToken,
      json: { plan: 'enterprise', tier: 'custom', requests_per_minute: 9000 },
    });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body).toMatchObject({
      plan: 'enterprise',
      tier: 'custom',
      requests_per_minute: 9000,
      requests_per_hour: null,
      requests_per_day: null,
      max_concurrent_sessions: 500,
    });
    expect(await auditOf(upgraded)).toEqual([
      {
        organization_id: parsePublicId('organization', id),
        mode: 'live',
        action: 'organization.updated',
        actor_type: 'client',
        actor_id: BOOTSTRAP_CLIENT_ID,
        target_type: 'organization',
        target_id: id,
        changes: {
          plan: { before: 'free', after: 'enterprise' },
          tier: { before: 'basic', after: 'custom' },
          requests_per_minute: { before: null, after: 9000 },
        },
        details: null,
      },
    ]);
    // The instance that made the change applies it at once.
    const after = await client.get('/v1/sessions', { apiKey: adminKey });
    expect(after.headers.get('ratelimit-policy')).toBe('"minute";q=9000;w=60');
    const [event] = await stack.api
      .get(DataSource)
      .query(
        `SELECT mode, data FROM events WHERE type = 'account.subscription_updated' AND data->>'organization_id' = $1`,
        [id],
      );
    expect(event).toMatchObject({
      mode: 'live',
      data: { plan: 'enterprise', previous_plan: 'free', tier: 'custom', previous_tier: 'basic' },
    });

    // Agreed numbers go with agreements: a downgrade must clear them in the same request.
    const refused = await client.patch(`/v2/enterprise/organizations/${id}`, {
      token: operatorToken,
      json: { plan: 'pro' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe('plan');
    expect(await auditOf(refused)).toEqual([]);
    const downgraded = await client.patch(`/v2/enterprise/organizations/${id}`, {
      token: operatorToken,
      json: { plan: 'pro', requests_per_minute: null },
    });
    expect(downgraded.body).toMatchObject({ plan: 'pro', requests_per_minute: 600 });
    const notAllowed = await client.patch(`/v2/enterprise/organizations/${id}`, {
      token: operatorToken,
      json: { requests_per_minute: 700 },
    });
    expect(notAllowed.body.error.details.field).toBe('requests_per_minute');
  });

  it('refuses changes from anyone but the operator, and to unknown organisations', async () => {
    const other = await createOrganization(stack, client);
    const refused = await client.patch(
      `/v2/enterprise/organizations/${toPublicId('organization', other.organizationId)}`,
      { token: await other.token(), json: { plan: 'enterprise' } },
    );
    expect(refused.status).toBe(403);
    const unknown = await client.patch(
      '/v2/enterprise/organizations/org_01jh2x7v4ke8rbk3a8y0v0d7qz',
      {
        token: operatorToken,
        json: { plan: 'pro' },
      },
    );
    expect(unknown.status).toBe(404);
    const bad = await client.patch(
      `/v2/enterprise/organizations/${toPublicId('organization', other.organizationId)}`,
      { token: operatorToken, json: { requests_per_hour: 0 } },
    );
    expect(bad.body.error.details.field).toBe('requests_per_hour');
  });

  it('gives the operator’s test mode no operator powers: it is a sandbox like any other', async () => {
    const issued = await client.post('/v1/api-keys', {
      token: operatorToken,
      json: { name: 'operator sandbox', scopes: [...ALL_SCOPES], mode: 'test' },
    });
    const sandboxKey: string = issued.body.key;
    expect(sandboxKey).toMatch(/^sk_test_/);
    const other = await createOrganization(stack, client);
    const otherId = toPublicId('organization', other.organizationId);
    for (const refused of [
      await client.post('/v2/enterprise/organizations', {
        apiKey: sandboxKey,
        json: { name: 'Made from the sandbox' },
      }),
      await client.patch(`/v2/enterprise/organizations/${otherId}`, {
        apiKey: sandboxKey,
        json: { plan: 'free', requests_per_minute: null, max_concurrent_sessions: null },
      }),
      await client.post('/v2/system/notices', {
        apiKey: sandboxKey,
        json: { type: 'system.security_alert', title: 'Rotate keys', message: 'Now.' },
      }),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      expect(refused.text).not.toMatch(/sk_live_/);
    }
    const listed = await client.get('/v2/enterprise/organizations?per_page=100', {
      apiKey: sandboxKey,
    });
    expect(listed.body.data).toEqual([expect.objectContaining({ is_operator: true })]);
    const unchanged = await client.get('/v2/enterprise/organizations?per_page=100', {
      apiKey: await other.apiKey(),
    });
    expect(unchanged.body.data).toEqual([expect.objectContaining({ plan: 'enterprise' })]);
  });

  it.each([
    [{ name: '' }, 'name', null],
    [{ name: 'x', plan: 'entreprise' }, 'plan', 'enterprise'],
    [{ name: 'x', tier: 'custo' }, 'tier', 'custom'],
  ])('refuses %j with VALIDATION_ERROR naming %s', async (body, field, suggested) => {
    const response = await client.post('/v2/enterprise/organizations', {
      token: operatorToken,
      json: body,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field, suggested_value: suggested },
    });
  });

  it.each(['per_page=0', 'per_page=101', 'cursor=not*a*cursor', 'cursor=Zm9v'])(
    'refuses ?%s',
    async (query) => {
      const response = await client.get(`/v2/enterprise/organizations?${query}`, {
        token: operatorToken,
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    },
  );
});
