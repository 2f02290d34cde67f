import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, parsePublicId, Scope, toPublicId } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken } from './support/people.js';
import type { RegisteredClient } from './support/authorization.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * No credential grants more than it holds (issue 37): a credential with
 * only `organizations:*` used to add an admin with a password, who then
 * signed in through a client holding every scope, or re-pointed an SSO
 * connection and signed in as its people. People are now bounded by the
 * credential that adds them (or gives them a role or a new invitation), and
 * a connection is changed only by a credential holding all it maps.
 */
const PEOPLE_ONLY = [Scope.OrganizationsRead, Scope.OrganizationsWrite];

let stack: Stack;
let client: TestClient;
let owner: TestOrganization;
let peopleKey: string;
let everyScopeClient: RegisteredClient;
let liveSessionId: string;

beforeAll(async () => {
  stack = await startStack({ worker: false, env: { OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  client = await TestClient.for(stack);
  owner = await createOrganization(stack, client, 'live');
  peopleKey = await owner.apiKey(PEOPLE_ONLY);
  // A first-party-like client that may ask for every scope, as the dashboard's does.
  everyScopeClient = await memberClient(client, owner, ALL_SCOPES);
  const session = await client.post('/v1/sessions', {
    token: await owner.token(),
    json: { type: 'remote_viewing', target: 'kept' },
  });
  liveSessionId = session.body.session_id;
});
afterAll(() => stack?.close());

function email(): string {
  return `person.${randomBytes(4).toString('hex')}@example.test`;
}

async function scopesOf(analystId: string): Promise<string[] | null> {
  const [row] = await stack.api
    .get(Sql)
    .rows<{ scopes: string[] | null }>(`SELECT scopes FROM users WHERE id = $1`, [
      parsePublicId('analyst', analystId),
    ]);
  return row!.scopes;
}

function tokenScopes(token: string): string[] {
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
  return String(payload.scope).split(' ');
}

describe('people added through the API', () => {
  it('hold no more than the credential that added them, whatever client they sign in with', async () => {
    const password = `pw-${randomBytes(9).toString('hex')}`;
    const person = { email: email(), password };
    const created = await client.post('/v2/analysts', {
      apiKey: peopleKey,
      json: { ...person, roles: ['admin'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(await scopesOf(created.body.analyst_id)).toEqual([...PEOPLE_ONLY].sort());

    const token = await memberToken(stack, everyScopeClient, person);
    expect(tokenScopes(token).sort()).toEqual([...PEOPLE_ONLY, Scope.Profile, Scope.Email].sort());
    const deletion = await client.delete(`/v1/sessions/${liveSessionId}`, { token });
    expect(deletion.status).toBe(403);
    expect(
      (await client.get(`/v1/sessions/${liveSessionId}`, { token: await owner.token() })).status,
    ).toBe(200);
  });

  it('are unbounded when added by a credential holding every scope', async () => {
    const created = await client.post('/v2/analysts', {
      token: await owner.token(),
      json: { email: email(), roles: ['analyst'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(await scopesOf(created.body.analyst_id)).toBeNull();
  });

  it('are narrowed to the credential that gives them a new role', async () => {
    const analyst = await addMember(stack, owner, ['analyst']);
    expect(await scopesOf(analyst.analystId)).toBeNull();
    const promoted = await client.patch(`/v2/analysts/${analyst.analystId}`, {
      apiKey: peopleKey,
      json: { roles: ['analyst', 'admin'] },
    });
    expect(promoted.status, promoted.text).toBe(200);
    expect(await scopesOf(analyst.analystId)).toEqual([...PEOPLE_ONLY].sort());
    const token = await memberToken(stack, everyScopeClient, analyst);
    expect(tokenScopes(token)).not.toContain(Scope.SessionsDelete);

    // A change that gives nothing (a new name) leaves the bound as it is.
    const renamed = await client.patch(`/v2/analysts/${analyst.analystId}`, {
      token: await owner.token(),
      json: { name: 'Renamed' },
    });
    expect(renamed.status).toBe(200);
    expect(await scopesOf(analyst.analystId)).toEqual([...PEOPLE_ONLY].sort());
  });

  it('are narrowed to the credential that hands out their new invitation link', async () => {
    const invited = await client.post('/v2/analysts', {
      token: await owner.token(),
      json: { email: email(), roles: ['admin'] },
    });
    expect(await scopesOf(invited.body.analyst_id)).toBeNull();
    const again = await client.post(`/v2/analysts/${invited.body.analyst_id}/invitation`, {
      apiKey: peopleKey,
    });
    expect(again.status, again.text).toBe(201);
    expect(await scopesOf(invited.body.analyst_id)).toEqual([...PEOPLE_ONLY].sort());
  });
});

describe('SSO connections', () => {
  let connectionPath: string;

  beforeAll(async () => {
    const organizationId = toPublicId('organization', owner.organizationId);
    const created = await client.post(
      `/v2/enterprise/organizations/${organizationId}/sso-connections`,
      {
        token: await owner.token(),
        json: {
          type: 'ldap',
          name: 'Directory',
          email_domains: ['ceilings.example.com'],
          url: 'ldaps://127.0.0.1:1',
          bind_dn: 'cn=service,dc=example,dc=com',
          bind_password: 'service secret',
          user_base_dn: 'ou=people,dc=example,dc=com',
          user_filter: '(mail={username})',
          default_scopes: [Scope.SessionsRead],
          group_scopes: { operators: [Scope.SessionsAdmin] },
        },
      },
    );
    expect(created.status, created.text).toBe(201);
    connectionPath = `/v2/enterprise/organizations/${organizationId}/sso-connections/${created.body.id}`;
  });

  it('are changed only by a credential holding every scope they map', async () => {
    const repointed = await client.patch(connectionPath, {
      apiKey: peopleKey,
      json: { url: 'ldaps://127.0.0.1:2' },
    });
    expect(repointed.status, repointed.text).toBe(403);
    expect(repointed.body.error.details.required_scopes).toEqual([
      Scope.SessionsAdmin,
      Scope.SessionsRead,
    ]);
    const unchanged = await client.get(connectionPath, { token: await owner.token() });
    expect(unchanged.body.url).toBe('ldaps://127.0.0.1:1');

    const byHolder = await client.patch(connectionPath, {
      apiKey: await owner.apiKey([...PEOPLE_ONLY, Scope.SessionsRead, Scope.SessionsAdmin]),
      json: { url: 'ldaps://127.0.0.1:2' },
    });
    expect(byHolder.status, byHolder.text).toBe(200);
  });

  it('never map a scope the caller lacks', async () => {
    const widened = await client.patch(connectionPath, {
      apiKey: peopleKey,
      json: { default_scopes: [Scope.SessionsDelete] },
    });
    expect(widened.status).toBe(400);
    expect(widened.body.error.details.field).toBe('default_scopes');
  });
});
