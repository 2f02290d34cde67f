import { createServer, type Server } from 'node:http';
import * as oauth from 'oauth4webapi';
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
import { launchChromium } from './support/browser.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { inflateRawSync } from 'node:zlib';
import type { Attack } from './fixtures/saml/attack.js';
import {
  responseXml,
  sign,
  toBase64,
  type ResponseFields,
} from './fixtures/saml/forged-response.js';
import { MESSAGE_ATTACKS } from './fixtures/saml/message-attacks.js';
import { WRAPPING_ATTACKS } from './fixtures/saml/wrapping-attacks.js';
import { selfSignedCertificate, startSamlIdp, type SamlIdp } from './support/saml-idp.js';
import { startDnsServer, type TestDnsServer } from './support/dns-server.js';
import { startStack, type Stack } from './support/stack.js';
import { proveDomains } from './support/sso-domains.js';

/**
 * Signing in through an organisation's SAML identity provider (issue 17),
 * against a real SimpleSAMLphp: "Sign in with SSO" sends the browser to the
 * IdP with a signed AuthnRequest, the IdP posts its signed response to our
 * ACS, and the sign-in ends in the same consent and authorization code as
 * local accounts, with the account created just in time and its groups
 * mapped to scopes.
 */

let stack: Stack;
let client: TestClient;
let sql: Sql;
let idp: SamlIdp;
let dns: TestDnsServer;
let as: oauth.AuthorizationServer;
let org: TestOrganization;
let app: RegisteredClient;
let connection: { id: string; acs_url: string; sp_entity_id: string; sp_metadata_url: string };
/** Our connection's certificate (PEM), as its SP metadata publishes it. */
let spCertificate: string;

const CLIENT_SCOPES = 'remote-viewing:read remote-viewing:write analytics:read profile email';

beforeAll(async () => {
  idp = await startSamlIdp({
    users: [
      {
        username: 'marie',
        password: 'radium-1898',
        email: 'marie@saml.example.com',
        name: 'Marie Curie',
        groups: ['physicists', 'chemists'],
      },
      {
        username: 'pierre',
        password: 'piezo-1880',
        email: 'pierre@saml.example.com',
        name: 'Pierre Curie',
        groups: [],
      },
    ],
  });
  dns = await startDnsServer();
  stack = await startStack({ env: { DNS_RESOLVERS: dns.address } });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
  as = await discover(stack.baseUrl);
  org = await createOrganization(stack, client);
  const token = await org.token();
  const connectionsPath = `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/sso-connections`;
  const created = await client.post(connectionsPath, {
    token,
    json: {
      type: 'saml',
      name: 'SimpleSAMLphp',
      email_domains: ['saml.example.com'],
      default_scopes: ['remote-viewing:read'],
      group_scopes: { physicists: ['remote-viewing:write'], chemists: ['analytics:read'] },
      idp_metadata_xml: idp.metadataXml,
    },
  });
  expect(created.status, created.text).toBe(201);
  await proveDomains(client, dns, connectionsPath, created.body, { token });
  connection = created.body;
  // The IdP administrator's step: register our SP from its metadata (with its signing certificate).
  const metadata = (await client.get(new URL(connection.sp_metadata_url).pathname)).text;
  const certificate = /<(?:ds:)?X509Certificate>([^<]+)</.exec(metadata)![1]!.replace(/\s/g, '');
  spCertificate = `-----BEGIN CERTIFICATE-----\n${certificate.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  await idp.setServiceProvider({
    entityId: connection.sp_entity_id,
    acsUrl: connection.acs_url,
    certificate: spCertificate,
  });
  app = await registerCodeClient(client, token, { public: false, scope: CLIENT_SCOPES });
});

afterAll(async () => {
  await stack?.close();
  await idp?.stop();
  await dns?.close();
});

interface AuditRow {
  organization_id: string;
  mode: string;
  action: string;
  actor_type: string;
  actor_id: string;
  target_type: string;
  target_id: string;
  request_id: string | null;
  changes: Record<string, { before: unknown; after: unknown }> | null;
  details: Record<string, unknown> | null;
}

/** The `person.…` audit events of the account of `email`, oldest first. */
async function personEvents(email: string): Promise<AuditRow[]> {
  const [user] = await sql.rows<{ id: string }>(`SELECT id FROM users WHERE email = $1`, [email]);
  return sql.rows<AuditRow>(
    `SELECT organization_id, mode, action, actor_type, actor_id, target_type, target_id,
            request_id, changes, details
       FROM audit_events WHERE target_id = $1 AND action LIKE 'person.%'
      ORDER BY created_at, id`,
    [toPublicId('user', user!.id)],
  );
}

/** Authorize, "Sign in with SSO", through the IdP's login form, and the POST back to our ACS. */
async function signInThroughIdp(email: string, username: string, password: string) {
  const jar = new CookieJar();
  const request = await authorizationRequest(as, app);
  const interaction = new URL(
    (await jar.fetch(request.url)).headers.get('location')!,
    stack.baseUrl,
  );
  const toIdp = await jar.fetch(`${interaction.href}/sso`, { method: 'POST', form: { email } });
  expect(toIdp.status).toBe(303);
  const authnRequest = toIdp.headers.get('location')!;
  expect(authnRequest.startsWith(idp.ssoUrl)).toBe(true);
  expect(new URL(authnRequest).searchParams.get('Signature')).toBeTruthy();
  const posted = await idp.login(authnRequest, username, password);
  expect(posted.acsUrl).toBe(connection.acs_url);
  const form = {
    SAMLResponse: posted.SAMLResponse,
    ...(posted.RelayState ? { RelayState: posted.RelayState } : {}),
  };
  const acs = await jar.fetch(posted.acsUrl, { method: 'POST', form });
  return { jar, request, interaction, posted, form, acs };
}

async function tokensAfter(flow: Awaited<ReturnType<typeof signInThroughIdp>>) {
  const { jar, request, acs } = flow;
  expect(acs.status, await acs.clone().text()).toBe(303);
  let response = await jar.fetch(acs.headers.get('location')!);
  expect(response.status, await response.clone().text()).toBe(303);
  for (let step = 0; step < 6; step += 1) {
    const next = new URL(response.headers.get('location')!, stack.baseUrl);
    if (next.origin !== new URL(stack.baseUrl).origin) break;
    if (next.pathname.startsWith('/oauth2/interaction/')) {
      expect(await (await jar.fetch(next)).text()).toContain('Allow');
      response = await jar.fetch(`${next.href}/confirm`, { method: 'POST' });
    } else {
      response = await jar.fetch(next);
    }
  }
  const callback = new URL(response.headers.get('location')!);
  const tokens = await exchangeCallback(as, app, callback, request);
  return tokens;
}

describe('SAML sign-in', () => {
  it('signs a person in through the IdP, creates the account and maps their groups to scopes', async () => {
    const flow = await signInThroughIdp('marie@saml.example.com', 'marie', 'radium-1898');
    expect(flow.posted.RelayState).toBe(flow.interaction.pathname.split('/').pop());
    const tokens = await tokensAfter(flow);
    expect(tokens.scope!.split(' ').sort()).toEqual(
      ['analytics:read', 'email', 'profile', 'remote-viewing:read', 'remote-viewing:write'].sort(),
    );
    const [user] = await sql.rows<Record<string, unknown>>(
      `SELECT organization_id, name, identity_source, groups, scopes FROM users WHERE email = $1`,
      ['marie@saml.example.com'],
    );
    expect(user).toMatchObject({
      organization_id: org.organizationId,
      name: 'Marie Curie',
      identity_source: 'saml',
      groups: ['chemists', 'physicists'],
      scopes: ['analytics:read', 'remote-viewing:read', 'remote-viewing:write'],
    });
    expect((await client.get('/v1/sessions', { token: tokens.access_token })).status).toBe(200);
    // Created just in time by the connection, at the ACS's request: on record, no key, no response.
    const [created, ...more] = await personEvents('marie@saml.example.com');
    expect(more).toEqual([]);
    expect(created).toMatchObject({
      organization_id: org.organizationId,
      mode: 'live',
      action: 'person.created',
      actor_type: 'system',
      actor_id: connection.id,
      target_type: 'person',
      target_id: expect.stringMatching(/^usr_/),
      request_id: flow.acs.headers.get('x-request-id'),
      changes: {
        email: { before: null, after: 'marie@saml.example.com' },
        name: { before: null, after: 'Marie Curie' },
        roles: { before: null, after: ['admin'] },
        identity_source: { before: null, after: 'saml' },
        groups: { before: null, after: ['chemists', 'physicists'] },
      },
      details: { source: 'saml', analyst_id: expect.stringMatching(/^analyst_/) },
    });
    expect(JSON.stringify(created)).not.toMatch(/PRIVATE KEY|SAMLResponse|radium/);
    expect(JSON.stringify(created)).not.toContain(flow.form.SAMLResponse.slice(0, 40));
  });

  it('gives only the default scopes to someone in no mapped group', async () => {
    const tokens = await tokensAfter(
      await signInThroughIdp('pierre@saml.example.com', 'pierre', 'piezo-1880'),
    );
    expect(tokens.scope!.split(' ').sort()).toEqual(['email', 'profile', 'remote-viewing:read']);
  });

  it('takes assertions the IdP encrypts to the connection’s certificate', async () => {
    const sp = {
      entityId: connection.sp_entity_id,
      acsUrl: connection.acs_url,
      certificate: spCertificate,
    };
    await idp.setServiceProvider({ ...sp, encryptionCertificate: spCertificate });
    try {
      const flow = await signInThroughIdp('pierre@saml.example.com', 'pierre', 'piezo-1880');
      const xml = Buffer.from(flow.form.SAMLResponse, 'base64').toString('utf8');
      expect(xml).toContain('EncryptedAssertion');
      expect(xml).not.toContain('pierre@saml.example.com');
      const tokens = await tokensAfter(flow);
      expect(tokens.scope!.split(' ')).toContain('remote-viewing:read');
    } finally {
      await idp.setServiceProvider(sp);
    }
  });

  it('refuses a response replayed into another sign-in, and a sign-in without a response', async () => {
    const flow = await signInThroughIdp('marie@saml.example.com', 'marie', 'radium-1898');
    await tokensAfter(flow);
    // Replayed into another sign-in (its RelayState): refused, and that sign-in says so.
    const jar2 = new CookieJar();
    const request2 = await authorizationRequest(as, app);
    const interaction2 = new URL(
      (await jar2.fetch(request2.url)).headers.get('location')!,
      stack.baseUrl,
    );
    const uid2 = interaction2.pathname.split('/').pop()!;
    const replay = await jar2.fetch(connection.acs_url, {
      method: 'POST',
      form: { SAMLResponse: flow.form.SAMLResponse, RelayState: uid2 },
    });
    expect(replay.status).toBe(303);
    const back = await jar2.fetch(replay.headers.get('location')!);
    expect(back.status).toBe(403);
    expect(await back.text()).toContain('could not be accepted');

    // The interaction page without anything the ACS checked: nothing to finish.
    const jar = new CookieJar();
    const request = await authorizationRequest(as, app);
    const interaction = new URL(
      (await jar.fetch(request.url)).headers.get('location')!,
      stack.baseUrl,
    );
    const early = await jar.fetch(`${interaction.href}/sso/saml`);
    expect(early.status).toBe(400);

    // No SAMLResponse, an unknown connection.
    expect(
      (await jar.fetch(connection.acs_url, { method: 'POST', form: { RelayState: 'x' } })).status,
    ).toBe(400);
    const unknown = connection.acs_url.replace(connection.id, 'sso_01jx2k9v3sfd8tq4m7n6p5r2wz');
    expect((await jar.fetch(unknown, { method: 'POST', form: flow.form })).status).toBe(404);
  });
});

describe('forged responses at the ACS (attack suite)', () => {
  const MALLORY = 'mallory@saml.example.com';

  /** A sign-in in progress: its interaction and the AuthnRequest id our SP sent to the IdP. */
  async function pendingSignIn() {
    const jar = new CookieJar();
    const request = await authorizationRequest(as, app);
    const interaction = new URL(
      (await jar.fetch(request.url)).headers.get('location')!,
      stack.baseUrl,
    );
    const toIdp = await jar.fetch(`${interaction.href}/sso`, {
      method: 'POST',
      form: { email: MALLORY },
    });
    const samlRequest = new URL(toIdp.headers.get('location')!).searchParams.get('SAMLRequest')!;
    const xml = inflateRawSync(Buffer.from(samlRequest, 'base64')).toString('utf8');
    const requestId = /\sID="([^"]+)"/.exec(xml)![1]!;
    return { jar, uid: interaction.pathname.split('/').pop()!, requestId };
  }

  const fieldsFor = (requestId: string): ResponseFields => ({
    issuer: idp.entityId,
    audience: connection.sp_entity_id,
    recipient: connection.acs_url,
    inResponseTo: requestId,
    nameId: MALLORY,
    attributes: { displayName: ['Mallory'], groups: ['physicists'] },
  });

  /** Posts a SAMLResponse to the ACS as the browser would, and follows it back to the sign-in. */
  async function post(jar: CookieJar, form: Record<string, string>) {
    const acs = await jar.fetch(connection.acs_url, { method: 'POST', form });
    if (acs.status !== 303) return acs;
    return jar.fetch(acs.headers.get('location')!);
  }

  const malloryExists = async () =>
    (await sql.rows(`SELECT 1 FROM users WHERE email = $1`, [MALLORY])).length > 0;

  it.each([...WRAPPING_ATTACKS, ...MESSAGE_ATTACKS])(
    'refuses $name, provisioning nobody',
    async (attack: Attack) => {
      const { jar, uid, requestId } = await pendingSignIn();
      const foreign = await pendingSignIn();
      const rogue = await selfSignedCertificate('rogue idp');
      const built = attack.build({
        fields: fieldsFor(requestId),
        relayState: uid,
        foreignRequestId: foreign.requestId,
        idp: { privateKey: idp.privateKey, certificate: idp.certificate },
        rogue,
      });
      const form =
        typeof built === 'string'
          ? { SAMLResponse: toBase64(built), RelayState: uid }
          : 'base64' in built
            ? { SAMLResponse: built.base64, RelayState: uid }
            : { SAMLResponse: toBase64(built.xml), RelayState: built.relayState };
      const back = await post(jar, form);
      expect(back.status, attack.name).not.toBe(303);
      expect(await back.text()).not.toContain('Allow');
      expect(await malloryExists()).toBe(false);
    },
  );

  it('takes an unsolicited (IdP-initiated) response only where the connection allows it', async () => {
    const IDA = 'ida@saml.example.com';
    const unsolicited = () =>
      toBase64(
        sign(responseXml({ ...fieldsFor(''), inResponseTo: null, nameId: IDA }), 'Assertion', {
          privateKey: idp.privateKey,
          certificate: idp.certificate,
        }),
      );
    const exists = async () =>
      (await sql.rows(`SELECT 1 FROM users WHERE email = $1`, [IDA])).length > 0;
    const jar = new CookieJar();
    const refused = await jar.fetch(connection.acs_url, {
      method: 'POST',
      form: { SAMLResponse: unsolicited() },
    });
    expect(refused.status).toBe(403);
    expect(await exists()).toBe(false);

    const path = `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/sso-connections/${connection.id}`;
    const token = await org.token();
    expect((await client.patch(path, { token, json: { allow_idp_initiated: true } })).status).toBe(
      200,
    );
    try {
      // Its RelayState is the sender's: neither a URL to follow nor a sign-in to finish.
      const victim = await pendingSignIn();
      const named = await jar.fetch(connection.acs_url, {
        method: 'POST',
        form: { SAMLResponse: unsolicited(), RelayState: victim.uid },
      });
      expect(named.status).toBe(200);
      expect(named.headers.get('location')).toBeNull();
      const untouched = await victim.jar.fetch(
        `${stack.baseUrl}/oauth2/interaction/${victim.uid}/sso/saml`,
      );
      expect(untouched.status).toBe(400);
      const accepted = await jar.fetch(connection.acs_url, {
        method: 'POST',
        form: { SAMLResponse: unsolicited(), RelayState: 'https://evil.example/next' },
      });
      expect(accepted.status).toBe(200);
      expect(accepted.headers.get('location')).toBeNull();
      const page = await accepted.text();
      expect(page).toContain('You are signed in');
      expect(page).not.toContain('evil.example');
      expect(await exists()).toBe(true);
    } finally {
      await client.patch(path, { token, json: { allow_idp_initiated: false } });
    }
  });

  it('refuses an email outside the connection’s domains, even signed by its IdP', async () => {
    const { jar, uid, requestId } = await pendingSignIn();
    const outsider = 'ceo@othercorp.example';
    const xml = sign(responseXml({ ...fieldsFor(requestId), nameId: outsider }), 'Assertion', {
      privateKey: idp.privateKey,
      certificate: idp.certificate,
    });
    const back = await post(jar, { SAMLResponse: toBase64(xml), RelayState: uid });
    expect(back.status).toBe(403);
    expect(await back.text()).toContain('outside the domains it signs in');
    expect(await sql.rows(`SELECT 1 FROM users WHERE email = $1`, [outsider])).toEqual([]);
  });

  it('refuses an email of a domain the connection lists but has not proven', async () => {
    const path = `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/sso-connections/${connection.id}`;
    const token = await org.token();
    const listed = await client.patch(path, {
      token,
      json: { email_domains: ['saml.example.com', 'unproven.example.org'] },
    });
    expect(listed.body.domains.map((claim: { status: string }) => claim.status)).toEqual([
      'verified',
      'pending',
    ]);
    try {
      const { jar, uid, requestId } = await pendingSignIn();
      const unproven = 'someone@unproven.example.org';
      const xml = sign(responseXml({ ...fieldsFor(requestId), nameId: unproven }), 'Assertion', {
        privateKey: idp.privateKey,
        certificate: idp.certificate,
      });
      const back = await post(jar, { SAMLResponse: toBase64(xml), RelayState: uid });
      expect(back.status).toBe(403);
      expect(await back.text()).toContain('outside the domains it signs in');
      expect(await sql.rows(`SELECT 1 FROM users WHERE email = $1`, [unproven])).toEqual([]);
    } finally {
      await client.patch(path, { token, json: { email_domains: ['saml.example.com'] } });
    }
  });

  it('accepts a response signed with the IdP’s own key (so the refusals above are the attacks’)', async () => {
    const { jar, uid, requestId } = await pendingSignIn();
    const xml = sign(responseXml(fieldsFor(requestId)), 'Assertion', {
      privateKey: idp.privateKey,
      certificate: idp.certificate,
    });
    const back = await post(jar, { SAMLResponse: toBase64(xml), RelayState: uid });
    expect(back.status).toBe(303);
    expect(await malloryExists()).toBe(true);

    // Her groups change at the IdP: the next sign-in changes her account, on record.
    const again = await pendingSignIn();
    const moved = sign(
      responseXml({
        ...fieldsFor(again.requestId),
        attributes: { displayName: ['Mallory'], groups: ['chemists'] },
      }),
      'Assertion',
      { privateKey: idp.privateKey, certificate: idp.certificate },
    );
    const signedIn = await post(again.jar, {
      SAMLResponse: toBase64(moved),
      RelayState: again.uid,
    });
    expect(signedIn.status).toBe(303);
    const events = await personEvents(MALLORY);
    expect(events.map((event) => event.action)).toEqual(['person.created', 'person.updated']);
    expect(events[1]).toMatchObject({
      actor_type: 'system',
      actor_id: connection.id,
      changes: {
        groups: { before: ['physicists'], after: ['chemists'] },
        scopes: {
          before: ['remote-viewing:read', 'remote-viewing:write'],
          after: ['analytics:read', 'remote-viewing:read'],
        },
      },
      details: { source: 'saml' },
    });
    expect(Object.keys(events[1]!.changes!).sort()).toEqual(['groups', 'scopes']);
  });
});

describe('SAML sign-in in a real browser', () => {
  it('goes to the IdP and back through its auto-posting form, and the client gets a working token', async () => {
    const callbacks: URL[] = [];
    let redirectUri = '';
    const callbackServer: Server = createServer((request, response) => {
      const url = new URL(request.url!, redirectUri);
      if (url.pathname === '/callback') callbacks.push(url);
      response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Signed in</h1>');
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callbackServer.address() as { port: number }).port}/callback`;
    const browser = await launchChromium();
    try {
      const spa = await registerCodeClient(client, await org.token(), {
        public: true,
        scope: CLIENT_SCOPES,
        redirectUris: [redirectUri],
      });
      const { url, codeVerifier, state } = await authorizationRequest(as, spa, {
        redirect_uri: redirectUri,
      });
      const page = await browser.newPage();
      await page.goto(url.href);
      await page.getByLabel('Work email').fill('marie@saml.example.com');
      await page.getByRole('button', { name: 'Sign in with SSO' }).click();

      // SimpleSAMLphp's own login form, then its page that posts the response to our ACS.
      await page.waitForURL((current) => current.href.startsWith(idp.baseUrl));
      await page.locator('input[name="username"]').fill('marie');
      await page.locator('input[name="password"]').fill('radium-1898');
      await page.locator('input[name="password"]').press('Enter');

      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent())
        .toMatch(/^Allow .* access\?$/);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((current) => current.href.startsWith(redirectUri));

      const params = oauth.validateAuthResponse(as, spa, callbacks.at(-1)!, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        spa,
        clientAuthentication(spa),
        params,
        redirectUri,
        codeVerifier,
        insecure,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, spa, response);
      expect(tokens.scope?.split(' ')).toContain('remote-viewing:write');
      const profile = await client.get('/v1/user/profile', { token: tokens.access_token });
      expect(profile.status).toBe(200);
      expect(profile.body.email).toBe('marie@saml.example.com');
    } finally {
      await browser.close();
      callbackServer.close();
    }
  });
});
