import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, Scope } from '#common';
import { OAuthClientEntity } from '#auth';
import { Sql } from '#database';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  BOOTSTRAP_CLIENT_ID,
  BOOTSTRAP_CLIENT_SECRET,
  startStack,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
});
afterAll(() => stack?.close());

interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  [field: string]: unknown;
}

/** A machine client: client_credentials, credentials sent in the form body (client_secret_post). */
const machine = {
  client_name: 'Nightly batch',
  grant_types: ['client_credentials'],
  token_endpoint_auth_method: 'client_secret_post',
  scope: 'remote-viewing:read remote-viewing:write',
};
const webApp = {
  client_name: 'Field notes web app',
  redirect_uris: ['https://notes.example.com/callback'],
  scope: Scope.SessionsRead,
};

async function register(json: object, as = token): Promise<RegisteredClient> {
  const response = await client.post('/v1/oauth-clients', { token: as, json });
  expect(response.status, response.text).toBe(201);
  return response.body as RegisteredClient;
}

function patch(clientId: string, json: unknown, as = token) {
  return client.request('PATCH', `/v1/oauth-clients/${clientId}`, { token: as, json });
}

function remove(clientId: string, as = token) {
  return client.request('DELETE', `/v1/oauth-clients/${clientId}`, { token: as });
}

function rotate(clientId: string, as = token) {
  return client.post(`/v1/oauth-clients/${clientId}/rotate-secret`, { token: as });
}

/** RFC 6749 §4.4 client_credentials with the credentials in the form body (client_secret_post). */
function tokenRequest(clientId: string, clientSecret: string, scope?: string) {
  return client.post('/oauth2/token', {
    form: {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      ...(scope ? { scope } : {}),
    },
  });
}

function expectInvalid(response: ApiResponse, field: string) {
  expect(response.status, response.text).toBe(400);
  expect(response.body.error).toMatchObject({
    code: 'INVALID_REQUEST',
    details: { field, issue: expect.any(String) },
    request_id: response.headers.get('x-request-id'),
  });
}

describe('registering clients', () => {
  it('creates a confidential client_credentials client whose secret, shown once, gets tokens', async () => {
    const before = Math.floor(Date.now() / 1000);
    const created = await register(machine);
    expect(created).toEqual({
      client_id: expect.stringMatching(/^cli_[0-9a-z]{26}$/),
      client_secret: expect.any(String),
      client_name: 'Nightly batch',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'remote-viewing:read remote-viewing:write',
      client_id_issued_at: expect.any(Number),
      client_secret_expires_at: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(created.client_id_issued_at).toBeGreaterThanOrEqual(before);
    expect(created.client_id_issued_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(created.client_secret!.length).toBeGreaterThanOrEqual(32);

    const issued = await tokenRequest(created.client_id, created.client_secret!);
    expect(issued.status, issued.text).toBe(200);
    expect(issued.body).toMatchObject({
      token_type: 'Bearer',
      scope: 'remote-viewing:read remote-viewing:write',
    });
    // The token belongs to the organisation: its session read is a 404, not a 401.
    const probe = await client.get('/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd', {
      token: issued.body.access_token,
    });
    expect(probe.status).toBe(404);
  });

  it('stores only an scrypt hash of the secret', async () => {
    const created = await register(machine);
    const row = await stack.api
      .get(DataSource)
      .getRepository(OAuthClientEntity)
      .findOneByOrFail({ clientId: created.client_id });
    expect(row.secretHash).toMatch(/^scrypt\$/);
    expect(row.secretHash).not.toContain(created.client_secret);
    expect(row).toMatchObject({ organizationId: org.organizationId, mode: 'live' });
  });

  it('defaults to authorization_code + refresh_token and client_secret_basic', async () => {
    const created = await register(webApp);
    expect(created).toMatchObject({
      redirect_uris: ['https://notes.example.com/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: Scope.SessionsRead,
      client_secret: expect.any(String),
      client_secret_expires_at: 0,
    });
  });

  it('creates a public client (none) without a secret, with loopback http redirect URIs', async () => {
    const created = await register({
      client_name: 'Command-line tool',
      redirect_uris: [
        'http://127.0.0.1:8765/callback',
        'http://localhost/callback',
        'http://[::1]:9000/callback',
        'https://cli.example.com/done?from=cli',
      ],
      token_endpoint_auth_method: 'none',
      scope: 'remote-viewing:read remote-viewing:write',
    });
    expect(created).toMatchObject({
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(created).not.toHaveProperty('client_secret');
    expect(created).not.toHaveProperty('client_secret_expires_at');
  });

  it('refuses the client_credentials grant to a client registered without it', async () => {
    const created = await register({ ...webApp, token_endpoint_auth_method: 'client_secret_post' });
    const response = await tokenRequest(created.client_id, created.client_secret!);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('unauthorized_client');
  });

  it('may be done with an API key holding organizations:write (a new organisation’s admin key)', async () => {
    const apiKey = await org.apiKey([Scope.OrganizationsWrite, Scope.SessionsRead]);
    const response = await client.post('/v1/oauth-clients', {
      apiKey,
      json: { ...machine, scope: Scope.SessionsRead },
    });
    expect(response.status).toBe(201);
    const beyond = await client.post('/v1/oauth-clients', { apiKey, json: machine });
    expectInvalid(beyond, 'scope');
    expect(beyond.body.error.details.issue).toContain('remote-viewing:write');
  });
});

describe('validation names the field', () => {
  const base = {
    client_name: 'Validation',
    grant_types: ['client_credentials'],
    scope: Scope.SessionsRead,
  };
  const webBase = { ...base, grant_types: ['authorization_code'] };
  it.each([
    [
      'http on a public host',
      { ...webBase, redirect_uris: ['http://app.example.com/cb'] },
      'redirect_uris',
    ],
    [
      'a fragment',
      { ...webBase, redirect_uris: ['https://app.example.com/cb#top'] },
      'redirect_uris',
    ],
    ['a relative URI', { ...webBase, redirect_uris: ['/callback'] }, 'redirect_uris'],
    ['a custom scheme', { ...webBase, redirect_uris: ['myapp:/callback'] }, 'redirect_uris'],
    [
      'user credentials',
      { ...webBase, redirect_uris: ['https://u:p@app.example.com/'] },
      'redirect_uris',
    ],
    [
      'surrounding spaces',
      { ...webBase, redirect_uris: [' https://app.example.com/cb'] },
      'redirect_uris',
    ],
    [
      '21 redirect URIs',
      { ...webBase, redirect_uris: Array.from({ length: 21 }, (_, i) => `https://a.example/${i}`) },
      'redirect_uris',
    ],
    ['a redirect URI that is not a string', { ...webBase, redirect_uris: [42] }, 'redirect_uris'],
    ['redirect_uris null', { ...webBase, redirect_uris: null }, 'redirect_uris'],
    ['an unknown grant', { ...base, grant_types: ['password'] }, 'grant_types'],
    ['the implicit grant', { ...base, grant_types: ['implicit'] }, 'grant_types'],
    ['no grant at all', { ...base, grant_types: [] }, 'grant_types'],
    ['authorization_code without redirect URIs', webBase, 'redirect_uris'],
    [
      'refresh_token without authorization_code',
      { ...base, grant_types: ['refresh_token', 'client_credentials'] },
      'grant_types',
    ],
    [
      'a public client with client_credentials',
      { ...base, token_endpoint_auth_method: 'none' },
      'grant_types',
    ],
    [
      'an unknown auth method',
      { ...base, token_endpoint_auth_method: 'private_key_jwt' },
      'token_endpoint_auth_method',
    ],
    ['an unknown scope', { ...base, scope: 'remote-viewing:read telepathy:write' }, 'scope'],
    ['an empty scope', { ...base, scope: '' }, 'scope'],
    ['only spaces as scope', { ...base, scope: '   ' }, 'scope'],
    ['scope as an array', { ...base, scope: [Scope.SessionsRead] }, 'scope'],
    ['no scope', { ...base, scope: undefined }, 'scope'],
    ['no client_name', { ...base, client_name: undefined }, 'client_name'],
    ['an empty client_name', { ...base, client_name: '' }, 'client_name'],
    ['a 201-character client_name', { ...base, client_name: 'x'.repeat(201) }, 'client_name'],
    ['a client-chosen secret', { ...base, client_secret: 'mine-mine-mine-mine' }, 'client_secret'],
  ])('refuses %s', async (_name, json, field) => {
    expectInvalid(await client.post('/v1/oauth-clients', { token, json }), field);
  });

  it('refuses scopes beyond the caller’s, naming them', async () => {
    const narrow = await org.token([Scope.OrganizationsWrite, Scope.SessionsRead]);
    const response = await client.post('/v1/oauth-clients', {
      token: narrow,
      json: { ...base, scope: 'remote-viewing:read dowsing:read' },
    });
    expectInvalid(response, 'scope');
    expect(response.body.error.details.issue).toContain('dowsing:read');
    expect(response.body.error.details.issue).not.toContain('remote-viewing:read');
  });
});

describe('scopes of the routes', () => {
  it('lets organizations:read read but not change (403)', async () => {
    const existing = await register(machine);
    const reader = await org.token([Scope.OrganizationsRead]);
    const created = await client.post('/v1/oauth-clients', { token: reader, json: machine });
    expect(created.status).toBe(403);
    expect(created.body.error).toMatchObject({
      code: 'FORBIDDEN',
      details: { required_scopes: [Scope.OrganizationsWrite] },
    });
    expect((await client.get('/v1/oauth-clients', { token: reader })).status).toBe(200);
    expect(
      (await client.get(`/v1/oauth-clients/${existing.client_id}`, { token: reader })).status,
    ).toBe(200);
    expect((await patch(existing.client_id, { client_name: 'x' }, reader)).status).toBe(403);
    expect((await rotate(existing.client_id, reader)).status).toBe(403);
    expect((await remove(existing.client_id, reader)).status).toBe(403);
    const writer = await org.token([Scope.OrganizationsWrite]);
    expect((await client.get('/v1/oauth-clients', { token: writer })).status).toBe(403);
    expect((await client.get('/v1/oauth-clients')).status).toBe(401);
  });
});

describe('listing and reading', () => {
  it('lists newest first with v1 paging and never shows a secret', async () => {
    const fresh = await createOrganization(stack, client);
    const freshToken = await fresh.token();
    const first = await register({ ...machine, client_name: 'first' }, freshToken);
    const second = await register({ ...webApp, client_name: 'second' }, freshToken);

    const page = await client.get('/v1/oauth-clients?limit=1', { token: freshToken });
    expect(page.status).toBe(200);
    // The factory's own client is the third.
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 0, has_more: true });
    expect(page.body.results.map((c: RegisteredClient) => c.client_id)).toEqual([second.client_id]);
    const rest = await client.get('/v1/oauth-clients?limit=2&offset=1', { token: freshToken });
    expect(rest.body).toMatchObject({ total: 3, limit: 2, offset: 1, has_more: false });
    expect(rest.body.results.map((c: RegisteredClient) => c.client_id)).toEqual([
      first.client_id,
      fresh.clientId,
    ]);
    const all = await client.get('/v1/oauth-clients', { token: freshToken });
    expect(all.body).toMatchObject({ limit: 20, offset: 0, has_more: false });
    for (const listed of all.body.results) expect(listed).not.toHaveProperty('client_secret');
    expect(all.text).not.toContain(first.client_secret);
    expect(all.text).not.toContain(second.client_secret);

    const read = await client.get(`/v1/oauth-clients/${first.client_id}`, { token: freshToken });
    expect(read.status).toBe(200);
    const { client_secret: _secret, ...withoutSecret } = first;
    expect(read.body).toEqual(withoutSecret);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['colour=red', 'colour'],
  ])('refuses ?%s naming %s', async (query, field) => {
    expectInvalid(await client.get(`/v1/oauth-clients?${query}`, { token }), field);
  });

  it.each([
    ['an unknown id', 'cli_01m82sfbpbenftg57hv349pfkd'],
    ['a malformed id', 'not%20an%20id'],
    ['a too short id', 'ab'],
    ['a very long id', 'x'.repeat(300)],
  ])('answers 404 NOT_FOUND for %s on every route', async (_name, id) => {
    for (const response of [
      await client.get(`/v1/oauth-clients/${id}`, { token }),
      await patch(id, { client_name: 'x' }),
      await rotate(id),
      await remove(id),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('refuses an id holding a NUL byte on every route, naming client_id (no text may hold NUL)', async () => {
    for (const response of [
      await client.get('/v1/oauth-clients/cli_%00', { token }),
      await patch('cli_%00', { client_name: 'x' }),
      await rotate('cli_%00'),
      await remove('cli_%00'),
    ]) {
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'INVALID_REQUEST',
        details: { field: 'client_id' },
      });
    }
  });
});

describe('updating', () => {
  it('changes the fields sent and keeps the rest, the secret included', async () => {
    const created = await register(webApp);
    const response = await patch(created.client_id, {
      client_name: 'Renamed',
      redirect_uris: ['https://notes.example.com/cb2', 'http://localhost:3000/cb'],
      scope: 'remote-viewing:read remote-viewing:write',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      client_id: created.client_id,
      client_name: 'Renamed',
      redirect_uris: ['https://notes.example.com/cb2', 'http://localhost:3000/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'remote-viewing:read remote-viewing:write',
      client_id_issued_at: created.client_id_issued_at,
      client_secret_expires_at: 0,
      created_at: created.created_at,
    });
    expect(response.body).not.toHaveProperty('client_secret');
    expect(Date.parse(response.body.updated_at)).toBeGreaterThanOrEqual(
      Date.parse(created.updated_at as string),
    );
    const read = await client.get(`/v1/oauth-clients/${created.client_id}`, { token });
    expect(read.body).toEqual(response.body);

    const unchanged = await patch(created.client_id, {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({ client_name: 'Renamed' });
  });

  it('keeps the secret when switching between client_secret_basic and client_secret_post', async () => {
    const created = await register(machine);
    const response = await patch(created.client_id, {
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('client_secret');
    const back = await patch(created.client_id, {
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(back.status).toBe(200);
    expect((await tokenRequest(created.client_id, created.client_secret!)).status).toBe(200);
  });

  it('checks the client as a whole, naming the field', async () => {
    const web = await register(webApp);
    const cc = await register(machine);
    const narrow = await org.token([
      Scope.OrganizationsWrite,
      Scope.SessionsRead,
      Scope.SessionsWrite,
    ]);
    const cases: [string, unknown, string, string?][] = [
      [web.client_id, { grant_types: ['refresh_token'] }, 'grant_types'],
      [web.client_id, { redirect_uris: [] }, 'redirect_uris'],
      [web.client_id, { redirect_uris: ['http://notes.example.com/cb'] }, 'redirect_uris'],
      [web.client_id, { grant_types: ['authorization_code', 'password'] }, 'grant_types'],
      [cc.client_id, { token_endpoint_auth_method: 'none' }, 'token_endpoint_auth_method'],
      [cc.client_id, { grant_types: ['authorization_code'] }, 'redirect_uris'],
      [cc.client_id, { scope: 'remote-viewing:read dowsing:read' }, 'scope', narrow],
      [cc.client_id, { scope: 'nonsense' }, 'scope'],
      [cc.client_id, { client_name: null }, 'client_name'],
      [cc.client_id, { client_name: '' }, 'client_name'],
      [cc.client_id, { client_id: 'cli_other' }, 'client_id'],
    ];
    for (const [id, json, field, as] of cases) {
      expectInvalid(await patch(id, json, as ?? token), field);
    }
    // Nothing was changed by the refused requests.
    const read = await client.get(`/v1/oauth-clients/${cc.client_id}`, { token });
    const { client_secret: _secret, ...withoutSecret } = cc;
    expect(read.body).toEqual(withoutSecret);
  });

  it('drops the secret when a client becomes public (none)', async () => {
    const created = await register({ ...webApp, token_endpoint_auth_method: 'client_secret_post' });
    const response = await patch(created.client_id, { token_endpoint_auth_method: 'none' });
    expect(response.status).toBe(200);
    expect(response.body.token_endpoint_auth_method).toBe('none');
    expect(response.body).not.toHaveProperty('client_secret');
    expect(response.body).not.toHaveProperty('client_secret_expires_at');
    const row = await stack.api
      .get(DataSource)
      .getRepository(OAuthClientEntity)
      .findOneByOrFail({ clientId: created.client_id });
    expect(row.secretHash).toBeNull();
    const refused = await tokenRequest(created.client_id, created.client_secret!);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
  });

  it('issues a secret, once, when a public client switches to a secret method', async () => {
    const created = await register({ ...webApp, token_endpoint_auth_method: 'none' });
    expect(created).not.toHaveProperty('client_secret');
    const response = await patch(created.client_id, {
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      token_endpoint_auth_method: 'client_secret_post',
      client_secret: expect.any(String),
      client_secret_expires_at: 0,
    });
    const read = await client.get(`/v1/oauth-clients/${created.client_id}`, { token });
    expect(read.body).not.toHaveProperty('client_secret');
    const issued = await tokenRequest(created.client_id, response.body.client_secret);
    expect(issued.status, issued.text).toBe(200);
  });
});

describe('a caller lacking some of a client’s scopes', () => {
  it('cannot change, rotate or delete it (403 naming them); a caller holding them can', async () => {
    const created = await register(machine);
    const narrow = await org.token([Scope.OrganizationsWrite, Scope.SessionsRead]);
    for (const response of [
      await patch(created.client_id, { scope: Scope.SessionsRead }, narrow),
      await patch(created.client_id, { client_name: 'mine' }, narrow),
      await rotate(created.client_id, narrow),
      await remove(created.client_id, narrow),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({
        code: 'FORBIDDEN',
        details: { field: 'scope', required_scopes: [Scope.SessionsWrite] },
      });
    }
    expect((await tokenRequest(created.client_id, created.client_secret!)).status).toBe(200);
    expect((await remove(created.client_id, token)).status).toBe(204);
  });
});

describe('rotating the secret', () => {
  it('returns a new secret once; the old one stops working at once', async () => {
    const created = await register(machine);
    expect((await tokenRequest(created.client_id, created.client_secret!)).status).toBe(200);

    const rotated = await rotate(created.client_id);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({
      client_id: created.client_id,
      client_secret: expect.any(String),
      client_secret_expires_at: 0,
      scope: created.scope,
    });
    expect(rotated.body.client_secret).not.toBe(created.client_secret);

    const old = await tokenRequest(created.client_id, created.client_secret!);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    expect((await tokenRequest(created.client_id, rotated.body.client_secret)).status).toBe(200);
    const read = await client.get(`/v1/oauth-clients/${created.client_id}`, { token });
    expect(read.body).not.toHaveProperty('client_secret');
  });

  it('is a 409 CONFLICT for a public client', async () => {
    const created = await register({ ...webApp, token_endpoint_auth_method: 'none' });
    const response = await rotate(created.client_id);
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { field: 'token_endpoint_auth_method' },
    });
  });
});

describe('deleting', () => {
  it('answers 204, then the client is 404 everywhere and cannot get tokens', async () => {
    const created = await register(machine);
    const issued = await tokenRequest(created.client_id, created.client_secret!);
    expect(issued.status).toBe(200);

    const deleted = await remove(created.client_id);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    for (const response of [
      await client.get(`/v1/oauth-clients/${created.client_id}`, { token }),
      await patch(created.client_id, { client_name: 'back' }),
      await rotate(created.client_id),
      await remove(created.client_id),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    const listed = await client.get('/v1/oauth-clients?limit=100', { token });
    expect(listed.body.results.map((c: RegisteredClient) => c.client_id)).not.toContain(
      created.client_id,
    );
    const refused = await tokenRequest(created.client_id, created.client_secret!);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
  });
});

describe('the bootstrap client', () => {
  it('is readable but cannot be changed, rotated or deleted (409 CONFLICT)', async () => {
    const bootstrap = await tokenRequest(BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET);
    expect(bootstrap.status).toBe(200);
    const operator = bootstrap.body.access_token as string;

    const read = await client.get(`/v1/oauth-clients/${BOOTSTRAP_CLIENT_ID}`, { token: operator });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      client_id: BOOTSTRAP_CLIENT_ID,
      grant_types: ['client_credentials'],
      scope: ALL_SCOPES.join(' '),
    });
    for (const response of [
      await patch(BOOTSTRAP_CLIENT_ID, { client_name: 'Mine now' }, operator),
      await patch(BOOTSTRAP_CLIENT_ID, { scope: Scope.SessionsRead }, operator),
      await rotate(BOOTSTRAP_CLIENT_ID, operator),
      await remove(BOOTSTRAP_CLIENT_ID, operator),
    ]) {
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({
        code: 'CONFLICT',
        details: { field: 'client_id', issue: expect.stringContaining('BOOTSTRAP_CLIENT_ID') },
      });
    }
    expect((await tokenRequest(BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET)).status).toBe(200);
    const after = await client.get(`/v1/oauth-clients/${BOOTSTRAP_CLIENT_ID}`, { token: operator });
    expect(after.body).toEqual(read.body);
  });

  it('is 404, not 409, to other organisations', async () => {
    expect((await client.get(`/v1/oauth-clients/${BOOTSTRAP_CLIENT_ID}`, { token })).status).toBe(
      404,
    );
    expect((await remove(BOOTSTRAP_CLIENT_ID)).status).toBe(404);
  });
});

describe('the dashboard’s sign-in clients', () => {
  it('cannot be changed, redirected or deleted, even by the operator (409), nor seen by others', async () => {
    const operator = (await tokenRequest(BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET)).body
      .access_token as string;
    for (const response of [
      await patch('sas-dashboard', { redirect_uris: ['https://evil.example.com/cb'] }, operator),
      await remove('sas-dashboard', operator),
    ]) {
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({
        code: 'CONFLICT',
        details: { field: 'client_id', issue: expect.stringContaining('registers them itself') },
      });
    }
    expect((await remove('sas-dashboard-test')).status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it('answers 404 to another organisation and to the other mode, and leaves the client alone', async () => {
    const created = await register(machine);
    const stranger = await (await createOrganization(stack, client)).token();
    const sameOrgTestMode = await org.apiKey(ALL_SCOPES, 'test');
    const path = `/v1/oauth-clients/${created.client_id}`;
    for (const credential of [{ token: stranger }, { apiKey: sameOrgTestMode }]) {
      for (const response of [
        await client.get(path, credential),
        await client.request('PATCH', path, { ...credential, json: { client_name: 'taken' } }),
        await client.post(`${path}/rotate-secret`, credential),
        await client.request('DELETE', path, credential),
      ]) {
        expect(response.status).toBe(404);
        expect(response.text).not.toContain('Nightly batch');
      }
      const listed = await client.get('/v1/oauth-clients?limit=100', credential);
      expect(listed.text).not.toContain(created.client_id);
    }
    const read = await client.get(path, { token });
    expect(read.body.client_name).toBe('Nightly batch');
    expect((await tokenRequest(created.client_id, created.client_secret!)).status).toBe(200);
  });

  it('keeps a test-mode caller’s clients in test mode', async () => {
    const testKey = await org.apiKey(ALL_SCOPES, 'test');
    const response = await client.post('/v1/oauth-clients', {
      apiKey: testKey,
      json: { ...machine, scope: Scope.SessionsRead },
    });
    expect(response.status).toBe(201);
    const path = `/v1/oauth-clients/${response.body.client_id}`;
    expect((await client.get(path, { apiKey: testKey })).status).toBe(200);
    expect((await client.get(path, { token })).status).toBe(404);
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
      actor_type: 'client',
      actor_id: org.clientId,
      target_type: 'oauth_client',
      request_id: requestId,
      ip: expect.any(String),
      user_agent: expect.any(String),
    });
    return rows[0]!;
  }

  it('records registration, changes, secret rotation and deletion, never a secret', async () => {
    const created = await client.post('/v1/oauth-clients', { token, json: machine });
    const creation = await auditOf(created);
    expect(creation).toMatchObject({
      action: 'oauth_client.created',
      target_id: created.body.client_id,
      changes: {
        client_name: { before: null, after: 'Nightly batch' },
        grant_types: { before: null, after: ['client_credentials'] },
        token_endpoint_auth_method: { before: null, after: 'client_secret_post' },
        scope: { before: null, after: machine.scope },
      },
    });
    const secrets = [created.body.client_secret as string];

    const changed = await patch(created.body.client_id, {
      client_name: 'Weekly batch',
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(changed.status).toBe(200);
    expect(await auditOf(changed)).toMatchObject({
      action: 'oauth_client.updated',
      target_id: created.body.client_id,
      changes: { client_name: { before: 'Nightly batch', after: 'Weekly batch' } },
    });
    expect(Object.keys((await auditOf(changed)).changes)).toEqual(['client_name']);

    const rotated = await rotate(created.body.client_id);
    secrets.push(rotated.body.client_secret);
    expect(await auditOf(rotated)).toMatchObject({
      action: 'oauth_client.secret_rotated',
      target_id: created.body.client_id,
      changes: null,
    });

    const deleted = await remove(created.body.client_id);
    expect(await auditOf(deleted)).toMatchObject({
      action: 'oauth_client.deleted',
      target_id: created.body.client_id,
    });

    const { organizationId } = org;
    const all = await stack.api
      .get(Sql)
      .rows('SELECT * FROM audit_events WHERE organization_id = $1 AND target_id = $2', [
        organizationId,
        created.body.client_id,
      ]);
    expect(all).toHaveLength(4);
    for (const secret of secrets) expect(JSON.stringify(all)).not.toContain(secret);
  });
});
