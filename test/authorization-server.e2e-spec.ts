import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sql } from '#database';
import { Scope } from '#common';
import {
  ADMIN,
  authorizationRequest,
  CookieJar,
  authorizeAs,
  clientAuthentication,
  discover,
  insecure,
  operatorToken,
  REDIRECT_URI,
  registerCodeClient,
  type RegisteredClient,
} from './support/authorization.js';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import {
  BOOTSTRAP_CLIENT_ID,
  BOOTSTRAP_CLIENT_SECRET,
  startStack,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let client: TestClient;
let as: oauth.AuthorizationServer;
let spa: RegisteredClient;
let webApp: RegisteredClient;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  as = await discover(stack.baseUrl);
  const token = await operatorToken(client);
  spa = await registerCodeClient(client, token, { public: true });
  webApp = await registerCodeClient(client, token, { public: false });
});
afterAll(() => stack?.close());

/** Runs the whole flow for a client and returns the callback parameters oauth4webapi validated. */
async function authorize(registered: RegisteredClient, extra: Record<string, string> = {}) {
  const request = await authorizationRequest(as, registered, extra);
  const callback = await authorizeAs(stack.baseUrl, request.url);
  const params = oauth.validateAuthResponse(as, registered, callback, request.state);
  return { ...request, callback, params };
}

async function exchange(
  registered: RegisteredClient,
  params: URLSearchParams,
  codeVerifier: string,
): Promise<Response> {
  return oauth.authorizationCodeGrantRequest(
    as,
    registered,
    clientAuthentication(registered),
    params,
    REDIRECT_URI,
    codeVerifier,
    insecure,
  );
}

async function refresh(registered: RegisteredClient, refreshToken: string): Promise<Response> {
  return oauth.refreshTokenGrantRequest(
    as,
    registered,
    clientAuthentication(registered),
    refreshToken,
    insecure,
  );
}

/** What oauth4webapi makes of an introspection answer to `registered` about `token`. */
async function introspect(registered: RegisteredClient, token: string) {
  const response = await oauth.introspectionRequest(
    as,
    registered,
    clientAuthentication(registered),
    token,
    insecure,
  );
  return oauth.processIntrospectionResponse(as, registered, response);
}

function revoke(registered: RegisteredClient, token: string): Promise<Response> {
  return oauth.revocationRequest(as, registered, clientAuthentication(registered), token, insecure);
}

async function tokensFor(registered: RegisteredClient) {
  const { params, codeVerifier } = await authorize(registered);
  const response = await exchange(registered, params, codeVerifier);
  return oauth.processAuthorizationCodeResponse(as, registered, response);
}

/** What the API answers to an access token (404: accepted, for a session that does not exist). */
async function apiStatus(accessToken: string): Promise<number> {
  const response = await client.get('/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd', {
    token: accessToken,
  });
  return response.status;
}

async function errorOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: string }).error;
}

describe('metadata (RFC 8414)', () => {
  it('advertises the code flow with S256 PKCE, RFC 9207 iss, revocation and introspection', () => {
    expect(as).toMatchObject({
      issuer: stack.baseUrl,
      authorization_endpoint: `${stack.baseUrl}/oauth2/authorize`,
      token_endpoint: `${stack.baseUrl}/oauth2/token`,
      revocation_endpoint: `${stack.baseUrl}/oauth2/revoke`,
      introspection_endpoint: `${stack.baseUrl}/oauth2/introspect`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
    );
  });
});

describe('authorization code + PKCE (public client)', () => {
  it('signs in, asks consent, returns code, state and iss, and issues the spec’s token response', async () => {
    const { callback, params, state, codeVerifier } = await authorize(spa);
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(stack.baseUrl);
    const response = await exchange(spa, params, codeVerifier);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.clone().json()) as { access_token: string; issued_at: number };
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: spa.scope,
      issued_at: expect.any(Number),
      refresh_token: expect.any(String),
    });
    await oauth.processAuthorizationCodeResponse(as, spa, response);
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({
      iss: stack.baseUrl,
      aud: stack.baseUrl,
      client_id: spa.client_id,
      sub: expect.stringMatching(/^usr_/),
      org_id: expect.stringMatching(/^org_/),
      mode: 'live',
    });
  });

  it('gives an access token that the API accepts, with the user’s profile', async () => {
    const tokens = await tokensFor(spa);
    const profile = await client.get('/v1/user/profile', { token: tokens.access_token });
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({
      user_id: decodeJwt(tokens.access_token).sub,
      email: ADMIN.email,
      organization_id: expect.stringMatching(/^org_/),
    });
    const sessions = await client.get('/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd', {
      token: tokens.access_token,
    });
    expect(sessions.status).toBe(404);
  });

  it('requires PKCE from public clients', async () => {
    const request = await authorizationRequest(as, spa);
    request.url.searchParams.delete('code_challenge');
    request.url.searchParams.delete('code_challenge_method');
    const callback = await authorizeAs(stack.baseUrl, request.url);
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('state')).toBe(request.state);
  });

  it('accepts only S256 as the challenge method', async () => {
    const request = await authorizationRequest(as, spa, { code_challenge_method: 'plain' });
    const callback = await authorizeAs(stack.baseUrl, request.url);
    expect(callback.searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a code with the wrong verifier', async () => {
    const { params } = await authorize(spa);
    const response = await exchange(spa, params, oauth.generateRandomCodeVerifier());
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe('invalid_grant');
  });

  it('matches redirect URIs exactly and never redirects to an unregistered one', async () => {
    for (const redirect of [
      `${REDIRECT_URI}/extra`,
      `${REDIRECT_URI}?x=1`,
      'http://127.0.0.1:10/callback',
      REDIRECT_URI.toUpperCase(),
    ]) {
      const request = await authorizationRequest(as, spa, { redirect_uri: redirect });
      const response = await fetch(request.url, { redirect: 'manual' });
      expect(response.status, redirect).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('redirect_uri');
    }
  });

  it('refuses a code exchanged with another redirect URI than the one it was issued for', async () => {
    const { params, codeVerifier } = await authorize(spa);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      spa,
      oauth.None(),
      params,
      'http://127.0.0.1:9/elsewhere',
      codeVerifier,
      insecure,
    );
    expect(await errorOf(response)).toBe('invalid_grant');
  });

  it('sends the user’s refusal back as access_denied', async () => {
    const request = await authorizationRequest(as, spa);
    const callback = await authorizeAs(stack.baseUrl, request.url, { ...ADMIN, decision: 'deny' });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(request.state);
  });

  it('refuses scopes the client is not registered for', async () => {
    const request = await authorizationRequest(as, spa, { scope: Scope.OrganizationsWrite });
    const callback = await authorizeAs(stack.baseUrl, request.url);
    expect(callback.searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('calls from a browser (CORS)', () => {
  const ownOrigin = new URL(REDIRECT_URI).origin;

  async function exchangeFrom(registered: RegisteredClient, origin: string): Promise<Response> {
    const { params, codeVerifier } = await authorize(registered);
    return oauth.authorizationCodeGrantRequest(
      as,
      registered,
      clientAuthentication(registered),
      params,
      REDIRECT_URI,
      codeVerifier,
      { ...insecure, headers: { origin } },
    );
  }

  it('lets a public client exchange its code from the origin of its redirect URI', async () => {
    const response = await exchangeFrom(spa, ownOrigin);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(ownOrigin);
  });

  it("lets any client call from the service's own origin (its Swagger UI), a client with a secret too", async () => {
    const serviceOrigin = new URL(stack.baseUrl).origin;
    const response = await fetch(as.token_endpoint!, {
      method: 'POST',
      headers: {
        origin: serviceOrigin,
        authorization: `Basic ${Buffer.from(`${BOOTSTRAP_CLIENT_ID}:${BOOTSTRAP_CLIENT_SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: Scope.SessionsRead }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(serviceOrigin);
    expect(await exchangeFrom(webApp, serviceOrigin).then((answer) => answer.status)).toBe(200);
  });

  it('refuses any other origin, and every other origin for a client with a secret', async () => {
    for (const [registered, origin] of [
      [spa, 'https://attacker.example'],
      [spa, 'null'],
      [webApp, ownOrigin],
    ] as const) {
      const response = await exchangeFrom(registered, origin);
      expect(response.status, origin).toBe(400);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(await response.json()).toMatchObject({
        error: 'invalid_request',
        error_description: `origin ${origin} not allowed for client: ${registered.client_id}`,
      });
    }
  });
});

describe('authorization codes are single-use and short-lived', () => {
  it('refuses a replayed code and revokes what the first use issued', async () => {
    const { params, codeVerifier } = await authorize(spa);
    const first = await oauth.processAuthorizationCodeResponse(
      as,
      spa,
      await exchange(spa, params, codeVerifier),
    );
    expect(await apiStatus(first.access_token)).toBe(404);
    const replay = await exchange(spa, params, codeVerifier);
    expect(replay.status).toBe(400);
    expect(await errorOf(replay)).toBe('invalid_grant');
    const afterReplay = await refresh(spa, first.refresh_token!);
    expect(await errorOf(afterReplay)).toBe('invalid_grant');
    expect(await apiStatus(first.access_token)).toBe(401);
  });

  it('lets exactly one of many concurrent exchanges of one code succeed', async () => {
    const { params, codeVerifier } = await authorize(spa);
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => exchange(spa, params, codeVerifier)),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 400)).toHaveLength(5);
  });

  it('refuses an expired code', async () => {
    const { params, codeVerifier } = await authorize(spa);
    await stack.api
      .get(Sql)
      .rows(
        `UPDATE oidc_payloads SET expires_at = now() - interval '1 second' WHERE kind = 'AuthorizationCode'`,
        [],
      );
    const response = await exchange(spa, params, codeVerifier);
    expect(await errorOf(response)).toBe('invalid_grant');
  });
});

describe('refresh tokens rotate', () => {
  it('issues a new refresh token each time and keeps scope and subject', async () => {
    const first = await tokensFor(spa);
    const response = await refresh(spa, first.refresh_token!);
    const body = (await response.clone().json()) as { access_token: string; issued_at: number };
    const second = await oauth.processRefreshTokenResponse(as, spa, response);
    expect(body.issued_at).toEqual(expect.any(Number));
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe(spa.scope);
    expect(decodeJwt(second.access_token).sub).toBe(decodeJwt(first.access_token).sub);
  });

  it('treats reuse of a rotated refresh token as theft and revokes the whole family', async () => {
    const first = await tokensFor(spa);
    const second = await oauth.processRefreshTokenResponse(
      as,
      spa,
      await refresh(spa, first.refresh_token!),
    );
    const reuse = await refresh(spa, first.refresh_token!);
    expect(await errorOf(reuse)).toBe('invalid_grant');
    const descendant = await refresh(spa, second.refresh_token!);
    expect(await errorOf(descendant)).toBe('invalid_grant');
    for (const token of [first.access_token, second.access_token]) {
      expect(await apiStatus(token)).toBe(401);
    }
  });

  it('lets at most one of many concurrent refreshes with one token succeed', async () => {
    const { refresh_token } = await tokensFor(spa);
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => refresh(spa, refresh_token!)),
    );
    expect(responses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(1);
  });

  it('binds a refresh token to its client', async () => {
    const { refresh_token } = await tokensFor(spa);
    const response = await refresh(webApp, refresh_token!);
    expect(await errorOf(response)).toBe('invalid_grant');
  });
});

describe('confidential clients', () => {
  it('run the code flow with client_secret_basic', async () => {
    const tokens = await tokensFor(webApp);
    expect(tokens.refresh_token).toBeDefined();
    expect(decodeJwt(tokens.access_token).client_id).toBe(webApp.client_id);
  });

  it('must authenticate to exchange a code', async () => {
    const { params, codeVerifier } = await authorize(webApp);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      webApp,
      oauth.ClientSecretBasic('wrong-secret'),
      params,
      REDIRECT_URI,
      codeVerifier,
      insecure,
    );
    expect(response.status).toBe(401);
    expect(await errorOf(response)).toBe('invalid_client');
  });

  it('cannot redeem a code issued to another client', async () => {
    const { params, codeVerifier } = await authorize(spa);
    const response = await exchange(webApp, params, codeVerifier);
    expect(await errorOf(response)).toBe('invalid_grant');
  });
});

describe('revocation (RFC 7009) and introspection (RFC 7662)', () => {
  it('introspects access and refresh tokens for a client of the same organisation', async () => {
    const tokens = await tokensFor(webApp);
    for (const token of [tokens.access_token, tokens.refresh_token!]) {
      expect(await introspect(webApp, token)).toMatchObject({
        active: true,
        client_id: webApp.client_id,
        scope: webApp.scope,
        sub: decodeJwt(tokens.access_token).sub,
      });
    }
  });

  it('says inactive for garbage, and for tokens of another organisation', async () => {
    const other = await createOrganization(stack, client);
    const foreignToken = await other.token();
    for (const token of ['not-a-token', foreignToken]) {
      expect(await introspect(webApp, token)).toEqual({
        active: false,
      });
    }
  });

  it('says inactive to a test-mode client of the same organisation about live tokens', async () => {
    const operator = await operatorToken(client);
    const sandboxKey = await client.post('/v1/api-keys', {
      token: operator,
      json: { name: 'sandbox admin', scopes: ['organizations:write'], mode: 'test' },
    });
    const registered = await client.post('/v1/oauth-clients', {
      apiKey: sandboxKey.body.key,
      json: {
        client_name: 'Sandbox introspector',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'organizations:write',
      },
    });
    const sandboxClient = registered.body as RegisteredClient;
    const tokens = await tokensFor(webApp);
    for (const token of [tokens.access_token, tokens.refresh_token!]) {
      expect(await introspect(sandboxClient, token)).toEqual({ active: false });
    }
  });

  it('refuses introspection without client authentication', async () => {
    const tokens = await tokensFor(webApp);
    const response = await fetch(as.introspection_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token }),
    });
    expect(response.status).toBe(401);
  });

  it('revokes a refresh token, which ends its grant and its access tokens', async () => {
    const tokens = await tokensFor(spa);
    const response = await revoke(spa, tokens.refresh_token!);
    await oauth.processRevocationResponse(response);
    expect(await errorOf(await refresh(spa, tokens.refresh_token!))).toBe('invalid_grant');
    expect(await apiStatus(tokens.access_token)).toBe(401);
    expect((await introspect(webApp, tokens.refresh_token!)).active).toBe(false);
  });

  it('leaves another client’s refresh token alone, answering as for an unknown one (no oracle)', async () => {
    const tokens = await tokensFor(spa);
    const others = await revoke(webApp, tokens.refresh_token!);
    const unknown = await revoke(webApp, `${tokens.refresh_token!.slice(0, -4)}AAAA`);
    // RFC 7009 §2.2: 200 whatever the token, so the answer never says a token is live.
    expect([others.status, await others.text()]).toEqual([200, '']);
    expect([unknown.status, await unknown.text()]).toEqual([200, '']);
    expect((await refresh(spa, tokens.refresh_token!)).status).toBe(200);
  });

  it('answers unsupported_token_type for anything shaped like a JWT, live or forged alike', async () => {
    const tokens = await tokensFor(webApp);
    const live = await revoke(webApp, tokens.access_token);
    const [header, payload] = tokens.access_token.split('.');
    const forged = await revoke(webApp, `${header}.${payload}.AAAA`);
    for (const response of [live, forged]) {
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toBe('unsupported_token_type');
    }
  });

  it('still refuses revocation without client authentication (401)', async () => {
    const tokens = await tokensFor(spa);
    const response = await fetch(as.revocation_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: webApp.client_id }),
    });
    expect(response.status).toBe(401);
  });
});

describe('the /oauth/authorize alias', () => {
  it('redirects to /oauth2/authorize with the same query', async () => {
    const response = await fetch(`${stack.baseUrl}/oauth/authorize?client_id=x&state=s%20t`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/oauth2/authorize?client_id=x&state=s%20t');
  });
});

describe('what the authorization server keeps', () => {
  it('stores codes, refresh tokens and sessions only as hashes', async () => {
    const request = await authorizationRequest(as, webApp);
    const jar = new CookieJar();
    const callback = await authorizeAs(stack.baseUrl, request.url, ADMIN, jar);
    const params = oauth.validateAuthResponse(as, webApp, callback, request.state);
    const code = params.get('code')!;
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      webApp,
      await exchange(webApp, params, request.codeVerifier),
    );
    const rows = await stack.api
      .get(Sql)
      .rows<{ kind: string; row: string }>('SELECT kind, t::text AS row FROM oidc_payloads t', []);
    const kinds = new Set(rows.map((row) => row.kind));
    expect(kinds).toEqual(expect.objectContaining(new Set(['AuthorizationCode', 'RefreshToken'])));
    for (const secret of [code, tokens.refresh_token!]) {
      expect(rows.filter((row) => row.row.includes(secret))).toEqual([]);
    }
    // The stored hashes still work: the refresh token refreshes.
    expect((await refresh(webApp, tokens.refresh_token!)).status).toBe(200);
  });
});

describe('an application of another organisation', () => {
  async function foreignClient(): Promise<{ registered: RegisteredClient; name: string }> {
    const other = await createOrganization(stack, client);
    const registered = await registerCodeClient(client, await other.token(), { public: true });
    const [{ name }] = await stack.api
      .get(Sql)
      .rows<{ name: string }>('SELECT name FROM organizations WHERE id = $1', [
        other.organizationId,
      ]);
    return { registered, name };
  }

  /** Follows the flow up to the first page the interaction shows. */
  async function firstPage(jar: CookieJar, url: URL) {
    let response = await jar.fetch(url);
    while (response.headers.get('location')) {
      const next = new URL(response.headers.get('location')!, stack.baseUrl);
      if (next.origin !== new URL(stack.baseUrl).origin) throw new Error(`left for ${next.href}`);
      response = await jar.fetch(next);
      if (next.pathname.startsWith('/oauth2/interaction/')) return { url: next, response };
    }
    throw new Error(`no interaction page: ${response.status}`);
  }

  it('names its organisation, and cannot be allowed by an account of another one', async () => {
    const { registered, name } = await foreignClient();
    const request = await authorizationRequest(as, registered);
    const jar = new CookieJar();
    const { url, response } = await firstPage(jar, request.url);
    const signIn = await response.text();
    expect(signIn).toContain(name);
    const refused = await jar.fetch(`${url.href}/login`, {
      method: 'POST',
      form: { email: ADMIN.email, password: ADMIN.password },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('location')).toBeNull();
    const page = await refused.text();
    expect(page).toContain('You cannot allow this application');
    expect(page).toContain(name);
    // Going back tells the application no, with no code.
    const back = await jar.fetch(`${url.href}/abort`, { method: 'POST' });
    const callback = new URL(
      (await jar.fetch(new URL(back.headers.get('location')!, stack.baseUrl))).headers.get(
        'location',
      )!,
    );
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.has('code')).toBe(false);
  });

  it('cannot be allowed by a user already signed in elsewhere, on the page or by posting consent', async () => {
    const jar = new CookieJar();
    const own = await authorizationRequest(as, webApp);
    await authorizeAs(stack.baseUrl, own.url, ADMIN, jar);
    const { registered, name } = await foreignClient();
    const request = await authorizationRequest(as, registered);
    const { url, response } = await firstPage(jar, request.url);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(name);
    const confirm = await jar.fetch(`${url.href}/confirm`, { method: 'POST' });
    expect(confirm.status).toBe(403);
    expect(confirm.headers.get('location')).toBeNull();
  });

  it('shows the owning organisation on the consent page of one’s own applications', async () => {
    const request = await authorizationRequest(as, webApp);
    const jar = new CookieJar();
    await authorizeAs(stack.baseUrl, (await authorizationRequest(as, spa)).url, ADMIN, jar);
    const { response } = await firstPage(jar, request.url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Registered by the organisation');
  });
});
