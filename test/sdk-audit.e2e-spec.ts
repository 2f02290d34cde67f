import { Client, NotFoundError, PermissionError, ValidationError, type AuditEvent } from '@sas/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * The SDK's audit log and SCIM tokens against the real service (issue 41):
 * `auditEvents.list` over cursor pages with every filter, `auditEvents.export`
 * read from the NDJSON stream as it comes, errors typed on both, and
 * `scimTokens` create, list and revoke.
 */

let stack: Stack;
let http: TestClient;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  http = await TestClient.for(stack);
});
afterAll(async () => {
  await stack?.close();
});

/** An organisation of its own (live mode), its SDK client (client credentials), and `count` new API keys. */
async function organisationWithKeys(count: number) {
  const org = await createOrganization(stack, http, 'live');
  const client = new Client({
    baseUrl: stack.baseUrl,
    clientId: org.clientId,
    clientSecret: org.clientSecret,
  });
  const keyIds: string[] = [];
  for (let i = 0; i < count; i += 1) {
    keyIds.push(
      (await client.apiKeys.create({ name: `audited ${i}`, scopes: ['remote-viewing:read'] })).id,
    );
  }
  return { org, client, keyIds };
}

const targets = (events: AuditEvent[]) => events.map((event) => event.target.id);

describe('client.auditEvents', () => {
  it('lists events newest first over cursor pages', async () => {
    const { org, client, keyIds } = await organisationWithKeys(5);
    const list = client.auditEvents.list({ action: 'api_key.created', per_page: 2 });
    const pages = [];
    for await (const page of list.pages()) pages.push(page);
    expect(pages.map((page) => page.data.length)).toEqual([2, 2, 1]);
    expect(pages[0]!.pagination).toMatchObject({ total: 5, has_next: true });
    expect(targets(pages.flatMap((page) => page.data))).toEqual([...keyIds].reverse());

    const [newest] = (await list.page()).data;
    expect(newest).toEqual({
      id: expect.stringMatching(/^audit_/),
      action: 'api_key.created',
      actor: { type: 'client', id: org.clientId },
      target: { type: 'api_key', id: keyIds.at(-1) },
      mode: 'live',
      ip: expect.any(String),
      user_agent: expect.stringMatching(/^sas-sdk-js\/2\.0\.0/),
      request_id: expect.stringMatching(/^req_/),
      changes: expect.any(Object),
      details: null,
      created_at: expect.any(String),
    });
    expect(targets(await list.toArray(3))).toEqual(keyIds.slice(-3).reverse());
  });

  it('filters by action, actor, target and time (strings or Dates)', async () => {
    const { org, client, keyIds } = await organisationWithKeys(2);
    await client.apiKeys.revoke(keyIds[0]!);
    const all = (filters: Parameters<Client['auditEvents']['list']>[0]) =>
      client.auditEvents
        .list(filters)
        .toArray()
        .then((events) => events.map((event) => `${event.action} ${event.target.id}`));
    expect(await all({ action: 'api_key.revoked' })).toEqual([`api_key.revoked ${keyIds[0]}`]);
    expect(await all({ target_id: keyIds[0] })).toEqual([
      `api_key.revoked ${keyIds[0]}`,
      `api_key.created ${keyIds[0]}`,
    ]);
    const byClient = await all({ actor_id: org.clientId });
    expect(byClient).toEqual([
      `api_key.revoked ${keyIds[0]}`,
      `api_key.created ${keyIds[1]}`,
      `api_key.created ${keyIds[0]}`,
    ]);
    expect(await all({ actor_id: 'usr_01m82sfbpbenftg57hv349pfkd' })).toEqual([]);
    const future = new Date(Date.now() + 60_000);
    expect(await all({ created_after: future })).toEqual([]);
    expect(await all({ created_after: future.toISOString() })).toEqual([]);
    expect(await all({ created_before: future, actor_id: org.clientId })).toEqual(byClient);
  });

  it('exports every matching event from the NDJSON stream, newest first, as list has them', async () => {
    const { client, keyIds } = await organisationWithKeys(30);
    const exported: AuditEvent[] = [];
    for await (const event of client.auditEvents.export({ action: 'api_key.created' })) {
      exported.push(event);
    }
    expect(exported).toHaveLength(30);
    expect(targets(exported)).toEqual([...keyIds].reverse());
    expect(exported).toEqual(
      await client.auditEvents.list({ action: 'api_key.created', per_page: 7 }).toArray(),
    );

    // Filters apply; leaving the loop early is fine, and the next export starts afresh.
    const one = [];
    for await (const event of client.auditEvents.export({ target_id: keyIds[3] })) one.push(event);
    expect(one.map((event) => `${event.action} ${event.target.id}`)).toEqual([
      `api_key.created ${keyIds[3]}`,
    ]);
    const firstTwo: AuditEvent[] = [];
    for await (const event of client.auditEvents.export()) {
      firstTwo.push(event);
      if (firstTwo.length === 2) break;
    }
    expect(targets(firstTwo)).toEqual([keyIds[29], keyIds[28]]);
    const future = new Date(Date.now() + 60_000);
    const none = [];
    for await (const event of client.auditEvents.export({ created_after: future }))
      none.push(event);
    expect(none).toEqual([]);
  });

  it('types refusals on list and export alike', async () => {
    const { org } = await organisationWithKeys(0);
    const narrow = new Client({
      baseUrl: stack.baseUrl,
      apiKey: await org.apiKey(['remote-viewing:read']),
    });
    await expect(narrow.auditEvents.list().page()).rejects.toBeInstanceOf(PermissionError);
    const drain = async (events: AsyncIterable<AuditEvent>) => {
      for await (const event of events) void event;
    };
    const refused = await drain(narrow.auditEvents.export()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PermissionError);
    expect((refused as PermissionError).requestId).toMatch(/^req_/);

    const admin = new Client({ baseUrl: stack.baseUrl, apiKey: await org.apiKey() });
    const invalid = await drain(admin.auditEvents.export({ action: 'DROP TABLE' })).catch(
      (error: unknown) => error,
    );
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(JSON.stringify((invalid as ValidationError).details)).toContain('action');
  });
});

describe('client.scimTokens', () => {
  it('creates a token shown once, lists it, and revokes it (twice is fine), each audited', async () => {
    const org: TestOrganization = await createOrganization(stack, http, 'live');
    const organizationId = toPublicId('organization', org.organizationId);
    const client = new Client({ baseUrl: stack.baseUrl, accessToken: await org.token() });

    const created = await client.scimTokens.create(organizationId, { name: 'Okta' });
    expect(created).toEqual({
      id: expect.stringMatching(/^scim_/),
      name: 'Okta',
      token: expect.stringMatching(/^sas_scim_[A-Za-z0-9_-]{43}$/),
      created_at: expect.any(String),
    });
    const unnamed = await client.scimTokens.create(organizationId);
    expect(unnamed.name).toBe('SCIM');

    const listed = await client.scimTokens.list(organizationId).toArray();
    expect(listed.map((token) => token.id)).toEqual([unnamed.id, created.id]);
    expect(listed[1]).toEqual({
      id: created.id,
      name: 'Okta',
      created_at: created.created_at,
      last_used_at: null,
      revoked_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(created.token);

    await client.scimTokens.revoke(organizationId, created.id);
    await client.scimTokens.revoke(organizationId, created.id);
    const after = await client.scimTokens.list(organizationId).toArray();
    expect(after.find((token) => token.id === created.id)!.revoked_at).toEqual(expect.any(String));
    expect(after.find((token) => token.id === unnamed.id)!.revoked_at).toBeNull();

    const audited = await client.auditEvents.list({ target_id: created.id }).toArray();
    // The second revocation changed nothing but is recorded all the same (someone tried).
    expect(audited.map((event) => event.action)).toEqual([
      'scim_token.revoked',
      'scim_token.revoked',
      'scim_token.created',
    ]);
    expect(JSON.stringify(audited)).not.toContain(created.token);

    const other = toPublicId(
      'organization',
      (await createOrganization(stack, http)).organizationId,
    );
    await expect(client.scimTokens.list(other).page()).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      client.scimTokens.revoke(organizationId, 'scim_01jx3m8q2ffr7bv6d0k4t9s1ya'),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
