import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { Sql } from '#database';
import {
  authorizationRequest,
  clientAuthentication,
  CookieJar,
  discover,
  exchangeCallback,
  insecure,
  registerCodeClient,
  type RegisteredClient,
} from './support/authorization.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startLdapServer, type LdapServer } from './support/ldap-server.js';
import { startDnsServer, type TestDnsServer } from './support/dns-server.js';
import { startStack, type Stack } from './support/stack.js';
import { proveDomains } from './support/sso-domains.js';

/**
 * Signing in through an organisation's LDAP directory (issue 17): "Sign in
 * with SSO" on the sign-in page, the directory's password, the same consent
 * and authorization code as local accounts; the account created just in
 * time, its scopes mapped from its directory groups at every sign-in.
 */

let stack: Stack;
let client: TestClient;
let sql: Sql;
let ldap: LdapServer;
let dns: TestDnsServer;
let as: oauth.AuthorizationServer;
let org: TestOrganization;
let app: RegisteredClient;
let connectionPath: string;

const CLIENT_SCOPES = 'remote-viewing:read remote-viewing:write analytics:read profile email';

beforeAll(async () => {
  ldap = await startLdapServer({ tls: true });
  dns = await startDnsServer();
  // The directory runs on this machine: allowed as an operator would allow theirs.
  stack = await startStack({
    env: { OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1', DNS_RESOLVERS: dns.address },
  });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
  as = await discover(stack.baseUrl);
  org = await createOrganization(stack, client);
  const token = await org.token();
  const connectionsPath = `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/sso-connections`;
  const created = await client.post(connectionsPath, {
    token,
    json: {
      type: 'ldap',
      name: 'Example directory',
      email_domains: ['example.test'],
      default_scopes: ['remote-viewing:read'],
      group_scopes: { engineers: ['remote-viewing:write'], admins: ['analytics:read'] },
      url: ldap.ldapsUrl,
      ca_certificate: ldap.caCertificate,
      bind_dn: ldap.serviceDn,
      bind_password: ldap.servicePassword,
      user_base_dn: ldap.peopleDn,
      user_filter: '(mail={username})',
      group_base_dn: ldap.groupsDn,
      group_filter: '(member={dn})',
    },
  });
  expect(created.status, created.text).toBe(201);
  await proveDomains(client, dns, connectionsPath, created.body, { token });
  connectionPath = `${connectionsPath}/${created.body.id}`;
  app = await registerCodeClient(client, token, { public: false, scope: CLIENT_SCOPES });
});

afterAll(async () => {
  await stack?.close();
  await ldap?.stop();
  await dns?.close();
});

/** The browser's way through: authorize, "Sign in with SSO", the directory's password. */
async function signInThroughDirectory(email: string, password: string) {
  const jar = new CookieJar();
  const request = await authorizationRequest(as, app);
  const toInteraction = await jar.fetch(request.url);
  const interaction = new URL(toInteraction.headers.get('location')!, stack.baseUrl);
  const signInPage = await (await jar.fetch(interaction)).text();
  expect(signInPage).toContain('Sign in with SSO');
  const directoryPage = await jar.fetch(`${interaction.href}/sso`, {
    method: 'POST',
    form: { email },
  });
  const submitted = await jar.fetch(`${interaction.href}/sso/ldap`, {
    method: 'POST',
    form: { email, password },
  });
  return { jar, request, interaction, directoryPage, submitted };
}

/** From a signed-in interaction to tokens: consent, code, exchange. */
async function finish(flow: Awaited<ReturnType<typeof signInThroughDirectory>>) {
  const { jar, request, submitted } = flow;
  expect(submitted.status, await submitted.clone().text()).toBe(303);
  let response = await jar.fetch(new URL(submitted.headers.get('location')!, stack.baseUrl));
  const consent = new URL(response.headers.get('location')!, stack.baseUrl);
  expect(consent.pathname).toMatch(/^\/oauth2\/interaction\//);
  const consentPage = await (await jar.fetch(consent)).text();
  response = await jar.fetch(`${consent.href}/confirm`, { method: 'POST' });
  response = await jar.fetch(new URL(response.headers.get('location')!, stack.baseUrl));
  const callback = new URL(response.headers.get('location')!);
  const tokens = await exchangeCallback(as, app, callback, request);
  return { consentPage, tokens };
}

describe('LDAP sign-in', () => {
  it('signs a directory user in, creates the account, and maps their groups to scopes', async () => {
    const flow = await signInThroughDirectory('ada@example.test', 'ada-analytical-engine');
    expect(flow.directoryPage.status).toBe(200);
    const page = await flow.directoryPage.text();
    expect(page).toContain('Sign in with Example directory');
    expect(page).toContain('name="password"');
    const { consentPage, tokens } = await finish(flow);
    expect(consentPage).toContain('ada@example.test');
    // ada is in engineers and admins: read by default, write and analytics by group.
    expect(tokens.scope.split(' ').sort()).toEqual(
      ['analytics:read', 'email', 'profile', 'remote-viewing:read', 'remote-viewing:write'].sort(),
    );
    const claims = decodeJwt(tokens.access_token);
    expect(claims.org_id).toBe(toPublicId('organization', org.organizationId));

    const [user] = await sql.rows<Record<string, unknown>>(
      `SELECT organization_id, name, password_hash, identity_source, groups, scopes, last_sign_in_at
         FROM users WHERE email = 'ada@example.test'`,
      [],
    );
    expect(user).toMatchObject({
      organization_id: org.organizationId,
      name: 'Ada Lovelace',
      password_hash: null,
      identity_source: 'ldap',
      groups: ['admins', 'engineers'],
      scopes: ['analytics:read', 'remote-viewing:read', 'remote-viewing:write'],
    });
    expect(user!.last_sign_in_at).not.toBeNull();
    // The token works on the API with what it was given.
    const sessions = await client.get('/v1/sessions', { token: tokens.access_token });
    expect(sessions.status).toBe(200);
  });

  it('takes scopes away at the next sign-in when the directory takes a group away', async () => {
    const grace = await finish(
      await signInThroughDirectory('grace@example.test', 'grace-cobol-1959'),
    );
    expect(grace.tokens.scope.split(' ')).toContain('remote-viewing:write');
    await ldap.modify(`dn: cn=engineers,ou=groups,dc=example,dc=test
changetype: modify
delete: member
member: uid=grace,ou=people,dc=example,dc=test
`);
    const again = await finish(
      await signInThroughDirectory('grace@example.test', 'grace-cobol-1959'),
    );
    expect(again.tokens.scope.split(' ')).not.toContain('remote-viewing:write');
    expect(again.tokens.scope.split(' ')).toContain('remote-viewing:read');
    // Refreshing the earlier token does not bring the scope back either.
    expect(grace.tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await oauth.refreshTokenGrantRequest(
      as,
      app,
      clientAuthentication(app),
      grace.tokens.refresh_token,
      insecure,
    );
    const body = (await refreshed.json()) as Record<string, string>;
    expect(refreshed.status, JSON.stringify(body)).toBe(200);
    expect(body.scope.split(' ')).not.toContain('remote-viewing:write');
    expect(body.scope.split(' ')).toContain('remote-viewing:read');
  });

  it('refuses a wrong password, an unknown person and filter injection alike, and counts them', async () => {
    for (const [email, password] of [
      ['ada@example.test', 'wrong'],
      ['nobody@example.test', 'whatever'],
      ['*)(mail=*))(|(mail=*@example.test', 'ada-analytical-engine'],
    ] as const) {
      const { submitted } = await signInThroughDirectory(email, password);
      const text = await submitted.text();
      expect(submitted.status, email).toBe(401);
      expect(text).toContain('The email address or password is not right.');
      expect(text).not.toContain(password === 'wrong' ? 'wrong"' : password);
    }
    const empty = await signInThroughDirectory('ada@example.test', '');
    expect(empty.submitted.status).toBe(400);
    const rows = await sql.rows(`SELECT 1 FROM users WHERE email = 'nobody@example.test'`, []);
    expect(rows).toEqual([]);
  });

  it('limits failed directory passwords like local ones', async () => {
    let status = 0;
    for (let attempt = 0; attempt < 8 && status !== 429; attempt += 1) {
      status = (await signInThroughDirectory('linus@example.test', `guess-${attempt}`)).submitted
        .status;
    }
    expect(status).toBe(429);
    // Even the right password waits now.
    const right = await signInThroughDirectory('linus@example.test', 'linus-no-groups');
    expect(right.submitted.status).toBe(429);
    expect(right.submitted.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('signs nobody in without an account when the connection does not provision', async () => {
    const token = await org.token();
    expect(
      (await client.patch(connectionPath, { token, json: { jit_provisioning: false } })).status,
    ).toBe(200);
    try {
      const { submitted } = await signInThroughDirectory(
        'obrien@example.test',
        'obrien-third-policeman',
      );
      expect(submitted.status).toBe(403);
      expect(await submitted.text()).toContain('You have no account here yet');
      const rows = await sql.rows(`SELECT 1 FROM users WHERE email = $1`, ['obrien@example.test']);
      expect(rows).toEqual([]);
    } finally {
      await client.patch(connectionPath, { token, json: { jit_provisioning: true } });
    }
  });

  it('gives the people it provisions the connection’s jit_roles: analysts sign in blind', async () => {
    const token = await org.token();
    const patched = await client.patch(connectionPath, { token, json: { jit_roles: ['analyst'] } });
    expect(patched.status).toBe(200);
    expect(patched.body.jit_roles).toEqual(['analyst']);
    const refused = await client.patch(connectionPath, { token, json: { jit_roles: [] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe('jit_roles');
    try {
      const { tokens } = await finish(
        await signInThroughDirectory('obrien@example.test', 'obrien-third-policeman'),
      );
      const [user] = await sql.rows<{ roles: string[] }>(
        `SELECT roles FROM users WHERE email = $1`,
        ['obrien@example.test'],
      );
      expect(user!.roles).toEqual(['analyst']);
      // An analyst sees only their own work: the organisation's sessions are not theirs.
      expect((await client.get('/v1/sessions', { token: tokens.access_token })).status).toBe(403);
      expect((await client.get('/v2/assignments', { token: tokens.access_token })).status).toBe(
        200,
      );
    } finally {
      await client.patch(connectionPath, { token, json: { jit_roles: ['admin'] } });
    }
  });

  it('sends a domain without a connection back to passwords, and a disabled connection signs nobody in', async () => {
    const jar = new CookieJar();
    const request = await authorizationRequest(as, app);
    const interaction = new URL(
      (await jar.fetch(request.url)).headers.get('location')!,
      stack.baseUrl,
    );
    const unknown = await jar.fetch(`${interaction.href}/sso`, {
      method: 'POST',
      form: { email: 'someone@elsewhere.example' },
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('No single sign-on is set up for elsewhere.example');

    const signedIn = await finish(
      await signInThroughDirectory('ada@example.test', 'ada-analytical-engine'),
    );
    const profile = () => client.get('/v1/user/profile', { token: signedIn.tokens.access_token });
    expect((await profile()).status).toBe(200);
    const token = await org.token();
    expect((await client.patch(connectionPath, { token, json: { enabled: false } })).status).toBe(
      200,
    );
    try {
      // Its people are signed out at once, as a disabled person is: the access token stops now.
      expect((await profile()).status).toBe(401);
      const disabled = await signInThroughDirectory('ada@example.test', 'ada-analytical-engine');
      expect(disabled.directoryPage.status).toBe(400);
      expect(disabled.submitted.status).toBe(400);
      // Nor are the tokens of its people renewed.
      const refreshed = await oauth.refreshTokenGrantRequest(
        as,
        app,
        clientAuthentication(app),
        signedIn.tokens.refresh_token!,
        insecure,
      );
      expect(refreshed.status).toBe(400);
      expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
    } finally {
      await client.patch(connectionPath, { token, json: { enabled: true } });
    }
  });

  // Last: it deletes the connection the tests above sign in through.
  it('signs the people of a deleted connection out at once; their accounts stay', async () => {
    const signedIn = await finish(
      await signInThroughDirectory('ada@example.test', 'ada-analytical-engine'),
    );
    const profile = () => client.get('/v1/user/profile', { token: signedIn.tokens.access_token });
    expect((await profile()).status).toBe(200);
    const deleted = await client.request('DELETE', connectionPath, { token: await org.token() });
    expect(deleted.status, deleted.text).toBe(204);
    expect((await profile()).status).toBe(401);
    const [account] = await sql.rows<{ sso_connection_id: string | null }>(
      `SELECT sso_connection_id FROM users WHERE email = 'ada@example.test'`,
    );
    expect(account).toEqual({ sso_connection_id: null });
  });
});
