import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId, Scope, toPublicId } from '#common';
import { Sql } from '#database';
import { ScimTokensService } from '#scim';
import { auditOf as auditOfRequest, type AuditRow } from './support/audit.js';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * SCIM tokens (issue 41): issued by the organisation and shown once, listed
 * without the token, revoked, and resolved by ScimTokensService.authenticate
 * as the /scim/v2 routes do; audited, never leaking the token; at most 20
 * live per organisation.
 */

let stack: Stack;
let client: TestClient;
let sql: Sql;
let scimTokens: ScimTokensService;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
  scimTokens = stack.api.get(ScimTokensService);
});
afterAll(() => stack?.close());

/** The audit events a response's request recorded, oldest first. */
function auditOf(response: ApiResponse): Promise<AuditRow[]> {
  return auditOfRequest(sql, response);
}

const path = (org: TestOrganization) =>
  `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/scim-tokens`;

const TOKEN_FORMAT = /^sas_scim_[A-Za-z0-9_-]{43}$/;

async function issue(org: TestOrganization, token: string, name = 'Okta') {
  const created = await client.post(path(org), { token, json: { name } });
  expect(created.status, created.text).toBe(201);
  return created;
}

async function listed(org: TestOrganization, token: string) {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?per_page=7${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await client.get(`${path(org)}${query}`, { token });
    expect(page.status, page.text).toBe(200);
    items.push(...page.body.data);
    cursor = page.body.pagination.next_cursor;
  } while (cursor !== null);
  return items;
}

describe('issuing a SCIM token', () => {
  it('shows the token once, stores only its SHA-256, and lists it without the token', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();

    const created = await issue(org, token, 'Okta');
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'id', 'name', 'token']);
    expect(created.body.id).toMatch(/^scim_/);
    expect(created.body.name).toBe('Okta');
    expect(created.body.token).toMatch(TOKEN_FORMAT);
    const secret = created.body.token as string;

    const [stored] = await sql.rows<{ token_hash: Buffer; row: string }>(
      `SELECT token_hash, t::text AS row FROM scim_tokens t WHERE organization_id = $1`,
      [org.organizationId],
    );
    expect(stored!.token_hash.equals(createHash('sha256').update(secret).digest())).toBe(true);
    expect(stored!.row).not.toContain(secret.slice('sas_scim_'.length));

    const list = await client.get(path(org), { token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toEqual([
      {
        id: created.body.id,
        name: 'Okta',
        created_at: created.body.created_at,
        last_used_at: null,
        revoked_at: null,
      },
    ]);
    expect(list.body.pagination).toMatchObject({ total: 1, has_next: false, next_cursor: null });
    expect(list.text).not.toContain(secret);

    // Unnamed, it is SCIM; a name out of bounds is refused.
    const unnamed = await client.post(path(org), { token, json: {} });
    expect(unnamed.status, unnamed.text).toBe(201);
    expect(unnamed.body.name).toBe('SCIM');
    for (const name of ['', 'x'.repeat(101), 'two\nlines', null]) {
      const refused = await client.post(path(org), { token, json: { name } });
      expect(refused.status, JSON.stringify(name)).toBe(400);
      expect(refused.body.error.details.field).toBe('name');
    }
  });

  it('records scim_token.created with the name, and no audit row holds the token', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();

    const created = await issue(org, token, 'Microsoft Entra ID');

    expect(await auditOf(created)).toEqual([
      {
        organization_id: org.organizationId,
        mode: 'live',
        action: 'scim_token.created',
        actor_type: 'client',
        actor_id: org.clientId,
        target_type: 'scim_token',
        target_id: created.body.id,
        changes: { name: { before: null, after: 'Microsoft Entra ID' } },
        details: null,
      },
    ]);
    const revoked = await client.delete(`${path(org)}/${created.body.id}`, { token });
    expect(revoked.status).toBe(204);
    const rows = await sql.rows<{ json: string }>(
      `SELECT row_to_json(a)::text AS json FROM audit_events a WHERE organization_id = $1`,
      [org.organizationId],
    );
    const actions = rows.map((row) => JSON.parse(row.json).action as string);
    expect(actions.filter((action) => action.startsWith('scim_token.')).sort()).toEqual([
      'scim_token.created',
      'scim_token.revoked',
    ]);
    const secret = created.body.token as string;
    for (const row of rows) {
      expect(row.json).not.toContain(secret);
      expect(row.json).not.toContain(secret.slice('sas_scim_'.length));
    }
  });
});

describe('authenticating a SCIM token', () => {
  it('resolves a live token to its organisation and id, noting its use at most once a minute', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const created = await issue(org, token);

    expect(await scimTokens.authenticate(created.body.token)).toEqual({
      organizationId: org.organizationId,
      tokenId: created.body.id,
    });
    const [first] = (await client.get(path(org), { token })).body.data;
    expect(first.last_used_at).not.toBeNull();

    // Within the minute: not written again.
    await scimTokens.authenticate(created.body.token);
    const id = parsePublicId('scimToken', created.body.id);
    const lastUsed = () =>
      sql.rows<{ last_used_at: Date }>(`SELECT last_used_at FROM scim_tokens WHERE id = $1`, [id]);
    const [unchanged] = await lastUsed();
    expect(unchanged!.last_used_at.toISOString()).toBe(first.last_used_at);

    // A minute later: written again.
    await sql.rows(
      `UPDATE scim_tokens SET last_used_at = now() - interval '2 minutes' WHERE id = $1`,
      [id],
    );
    const before = (await lastUsed())[0]!.last_used_at;
    await scimTokens.authenticate(created.body.token);
    expect((await lastUsed())[0]!.last_used_at.getTime()).toBeGreaterThan(before.getTime());
  });

  it('answers null to anything but an issued, unrevoked token', async () => {
    const org = await createOrganization(stack, client);
    const created = await issue(org, await org.token());
    const secret = created.body.token as string;
    const flipped = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const garbage of [
      '',
      'Bearer x',
      `sas_scim_${randomBytes(32).toString('base64url')}`,
      flipped,
      `${secret}x`,
      secret.slice(0, -1),
      secret.toUpperCase(),
      await org.apiKey(),
    ]) {
      expect(await scimTokens.authenticate(garbage), garbage).toBeNull();
    }
  });
});

describe('revoking a SCIM token', () => {
  it('stops it at once, keeps it listed with revoked_at, and is idempotent', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const kept = await issue(org, token, 'Okta');
    const created = await issue(org, token, 'Old Okta');

    const revoked = await client.delete(`${path(org)}/${created.body.id}`, { token });
    expect(revoked.status, revoked.text).toBe(204);
    expect(revoked.text).toBe('');
    expect(await scimTokens.authenticate(created.body.token)).toBeNull();
    expect(await scimTokens.authenticate(kept.body.token)).not.toBeNull();

    const list = await client.get(path(org), { token });
    const shown = list.body.data.find((t: { id: string }) => t.id === created.body.id);
    expect(shown.revoked_at).not.toBeNull();
    expect(list.body.data.map((t: { id: string }) => t.id)).toEqual([
      created.body.id,
      kept.body.id,
    ]);

    const [event] = await auditOf(revoked);
    expect(event).toMatchObject({
      action: 'scim_token.revoked',
      mode: 'live',
      actor_type: 'client',
      actor_id: org.clientId,
      target_type: 'scim_token',
      target_id: created.body.id,
      changes: { revoked_at: { before: null, after: shown.revoked_at } },
    });

    // Again: 204, nothing changes, the attempt is recorded.
    const again = await client.delete(`${path(org)}/${created.body.id}`, { token });
    expect(again.status).toBe(204);
    expect(await auditOf(again)).toMatchObject([{ action: 'scim_token.revoked', changes: null }]);
    const relisted = await client.get(path(org), { token });
    expect(
      relisted.body.data.find((t: { id: string }) => t.id === created.body.id).revoked_at,
    ).toBe(shown.revoked_at);
  });

  it('is 404 naming the id for a token that does not exist', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    for (const id of [toPublicId('scimToken', '01974744-5c4f-7e0e-bd99-a099349c87ca'), 'key_x']) {
      const response = await client.delete(`${path(org)}/${id}`, { token });
      expect(response.status, id).toBe(404);
      expect(response.body.error.message).toContain(id);
      expect(await auditOf(response)).toEqual([]);
    }
  });
});

describe('who may manage SCIM tokens', () => {
  it('is the organisation itself: another organisation’s id in the path, or its token, is 404', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const created = await issue(org, token);
    const other = await createOrganization(stack, client);
    const otherToken = await other.token();

    expect((await client.get(path(org), { token: otherToken })).status).toBe(404);
    expect((await client.post(path(org), { token: otherToken, json: {} })).status).toBe(404);
    expect(
      (await client.delete(`${path(org)}/${created.body.id}`, { token: otherToken })).status,
    ).toBe(404);
    // Its own path, the other organisation's token id.
    expect(
      (await client.delete(`${path(other)}/${created.body.id}`, { token: otherToken })).status,
    ).toBe(404);
    expect(await scimTokens.authenticate(created.body.token)).not.toBeNull();
    expect((await client.get(path(other), { token: otherToken })).body.data).toEqual([]);
  });

  it('reads with organizations:read in either mode, and changes only with a live-mode organizations:write', async () => {
    const org = await createOrganization(stack, client);
    const created = await issue(org, await org.token());

    const testKey = await org.apiKey(undefined, 'test');
    const listed = await client.get(path(org), { token: testKey });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((t: { id: string }) => t.id)).toEqual([created.body.id]);
    for (const [method, suffix] of [
      ['POST', ''],
      ['DELETE', `/${created.body.id}`],
    ] as const) {
      const refused = await client.request(method, `${path(org)}${suffix}`, {
        token: testKey,
        ...(method === 'POST' ? { json: { name: 'sandbox' } } : {}),
      });
      expect(refused.status, method).toBe(403);
      expect(refused.body.error.message).toMatch(/live-mode credential/);
    }
    expect(await scimTokens.authenticate(created.body.token)).not.toBeNull();

    const reader = await org.token([Scope.OrganizationsRead]);
    expect((await client.get(path(org), { token: reader })).status).toBe(200);
    expect((await client.post(path(org), { token: reader, json: {} })).status).toBe(403);
    const writer = await org.token([Scope.OrganizationsWrite]);
    expect((await client.get(path(org), { token: writer })).status).toBe(403);
  });
});

describe('the limit of live tokens', () => {
  it('holds 20 live tokens, even created at once; revoking one makes room', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();

    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        client.post(path(org), { token, json: { name: `IdP ${i}` } }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(4);
    for (const response of refused) {
      expect(response.status, response.text).toBe(409);
      expect(response.body.error.code).toBe('CONFLICT');
      expect(response.body.error.message).toMatch(/20 live SCIM tokens/);
      expect(await auditOf(response)).toEqual([]);
    }

    const all = await listed(org, token);
    expect(all).toHaveLength(20);
    const ids = all.map((t) => t.id as string);
    expect(new Set(ids).size).toBe(20);

    const revoked = await client.delete(`${path(org)}/${ids[5]}`, { token });
    expect(revoked.status).toBe(204);
    await issue(org, token, 'Replacement');
    expect((await client.post(path(org), { token, json: {} })).status).toBe(409);

    // Revoked tokens stay listed, and do not count.
    expect(await listed(org, token)).toHaveLength(21);
  });
});
