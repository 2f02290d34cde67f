import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import {
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type JWTPayload,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '#auth';
import { Scope } from '#common';
import { OrganizationsService } from '#organizations';
import { RedisService } from '#queue';
import {
  authorizationRequest,
  CookieJar,
  discover,
  operatorToken,
  registerCodeClient,
  type RegisteredClient,
} from './support/authorization.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { DEADLINE_MS, waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let as: oauth.AuthorizationServer;
let spa: RegisteredClient;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  as = await discover(stack.baseUrl);
  spa = await registerCodeClient(client, await operatorToken(client), { public: true });
  org = await createOrganization(stack, client);
});
afterAll(async () => {
  // The failures counted here are per address (127.0.0.1); later test files start from zero.
  const redis = stack.api.get(RedisService).client;
  const keys = await redis.keys(`${stack.settings.redisPrefix}:attempts:*`);
  if (keys.length > 0) await redis.del(...keys);
  await stack?.close();
});

/** A local account of its own, so locking it out disturbs no other test. */
async function localAccount(): Promise<{ email: string; password: string }> {
  const email = `person-${randomBytes(4).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const operator = await stack.api.get(OrganizationsService).ensureBootstrap();
  await stack.api.get(UsersService).ensureLocalAccount(operator.id, email, password);
  return { email, password };
}

/** Opens the sign-in page of a fresh authorization request; returns where to post the form. */
async function signInPage(jar: CookieJar): Promise<{ action: string; html: string }> {
  const { url } = await authorizationRequest(as, spa);
  const redirect = await jar.fetch(url);
  const page = new URL(redirect.headers.get('location')!, stack.baseUrl);
  const response = await jar.fetch(page);
  return { action: `${page.href}/login`, html: await response.text() };
}

async function signIn(
  jar: CookieJar,
  action: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
) {
  const response = await jar.fetch(action, { method: 'POST', form: { email, password }, headers });
  return { status: response.status, response, html: await response.text() };
}

describe('the sign-in page', () => {
  it('is an accessible form: labelled fields, autocomplete hints, the client’s name, no framing', async () => {
    const jar = new CookieJar();
    const { url } = await authorizationRequest(as, spa);
    const redirect = await jar.fetch(url);
    const response = await jar.fetch(new URL(redirect.headers.get('location')!, stack.baseUrl));
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<label for="email">');
    expect(html).toContain('<label for="password">');
    expect(html).toContain('autocomplete="current-password"');
    expect(html).toContain('Test single-page app');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('says the same thing for an unknown email as for a wrong password', async () => {
    const { email } = await localAccount();
    const jar = new CookieJar();
    const { action } = await signInPage(jar);
    const wrong = await signIn(jar, action, email, 'not the password');
    const unknown = await signIn(jar, action, `nobody-${email}`, 'not the password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
    expect(message(wrong.html)).toBe('The email address or password is not right.');
    expect(message(unknown.html)).toBe(message(wrong.html));
    expect(wrong.html).toContain('aria-invalid="true"');
  });

  it('escapes what it echoes back', async () => {
    const jar = new CookieJar();
    const { action } = await signInPage(jar);
    const attempt = await signIn(jar, action, '"><script>alert(1)</script>', 'x');
    expect(attempt.html).not.toContain('<script>alert(1)</script>');
    expect(attempt.html).toContain('&quot;&gt;&lt;script&gt;');
  });

  it('locks an address out of an account after five failures, not the account, then names no reason', async () => {
    const person = await localAccount();
    const attacker = { 'x-forwarded-for': '203.0.113.7' };
    const owner = { 'x-forwarded-for': '198.51.100.2' };
    const jar = new CookieJar();
    const { action } = await signInPage(jar);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await signIn(jar, action, person.email, 'wrong', attacker)).status).toBe(401);
    }
    const blocked = await signIn(jar, action, person.email, person.password, attacker);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.response.headers.get('retry-after'))).toBeGreaterThan(60);
    // The owner, from their own address, is not locked out by someone else's guesses.
    const ownJar = new CookieJar();
    const own = await signInPage(ownJar);
    const signedIn = await signIn(ownJar, own.action, person.email, person.password, owner);
    expect(signedIn.status, signedIn.html).toBe(303);
    // The attacker's address stays locked out of the account.
    expect((await signIn(jar, action, person.email, person.password, attacker)).status).toBe(429);
    // An email nobody has gets exactly the same treatment: blocking reveals nothing.
    const ghost = `ghost-${person.email}`;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await signIn(jar, action, ghost, 'wrong', attacker);
    }
    expect((await signIn(jar, action, ghost, 'wrong', attacker)).status).toBe(429);
  });

  it('only slows an account down when it fails from many addresses: its owner gets in after a short wait', async () => {
    const person = await localAccount();
    const jar = new CookieJar();
    const { action } = await signInPage(jar);
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const from = { 'x-forwarded-for': `203.0.113.${100 + attempt}` };
      expect([401, 429]).toContain((await signIn(jar, action, person.email, 'wrong', from)).status);
    }
    const ownJar = new CookieJar();
    const own = await signInPage(ownJar);
    const owner = { 'x-forwarded-for': '198.51.100.3' };
    const signedIn = await waitFor(
      async () => {
        const attempt = await signIn(ownJar, own.action, person.email, person.password, owner);
        if (attempt.status === 429) {
          // Spaced out, never locked for the window: a minute at most.
          const wait = Number(attempt.response.headers.get('retry-after'));
          expect(wait).toBeGreaterThan(0);
          expect(wait).toBeLessThanOrEqual(60);
          expect(attempt.html).toContain('Too many failed attempts for this account');
          return null;
        }
        return attempt;
      },
      DEADLINE_MS,
      250,
    );
    expect(signedIn.status, signedIn.html).toBe(303);
  });

  it('refuses a form posted without the interaction cookie (another browser, or a forged post)', async () => {
    const { action } = await signInPage(new CookieJar());
    const response = await fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.c&password=x',
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
  });
});

describe('brute force at the token endpoint', () => {
  const attempt = (clientId: string, secret: string) =>
    client.post('/oauth2/token', {
      form: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
    });

  it('blocks a client after ten wrong secrets from one address, with Retry-After', async () => {
    const victim = await createOrganization(stack, client);
    for (let i = 0; i < 10; i += 1) {
      expect((await attempt(victim.clientId, 'wrong')).status).toBe(401);
    }
    const blocked = await attempt(victim.clientId, victim.clientSecret);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toBe('temporarily_unavailable');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other clients from the same address are unaffected.
    expect((await attempt(org.clientId, org.clientSecret)).status).toBe(200);
  });

  it('blocks an unknown client id the same way, so blocking reveals nothing', async () => {
    const ghost = `cli_ghost_${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < 10; i += 1) expect((await attempt(ghost, 'wrong')).status).toBe(401);
    expect((await attempt(ghost, 'wrong')).status).toBe(429);
  });
});

describe('crafted access tokens are refused by the API', () => {
  const session = '/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd';

  async function realClaims(): Promise<{ claims: JWTPayload; kid: string }> {
    const token = await org.token([Scope.SessionsRead]);
    const [, payload] = token.split('.');
    return {
      claims: JSON.parse(Buffer.from(payload!, 'base64url').toString()) as JWTPayload,
      kid: decodeProtectedHeader(token).kid!,
    };
  }

  async function signWithAttackerKey(
    claims: JWTPayload,
    header: Record<string, unknown>,
  ): Promise<string> {
    const { privateKey } = await generateKeyPair('ES256');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...header })
      .sign(privateKey);
  }

  it('the real token works (the control)', async () => {
    const token = await org.token([Scope.SessionsRead]);
    expect((await client.get(session, { token })).status).toBe(404);
  });

  it.each([
    [
      'signed by another key under the real kid',
      async () => {
        const { claims, kid } = await realClaims();
        return signWithAttackerKey(claims, { kid });
      },
    ],
    [
      'alg none',
      async () => {
        const { claims } = await realClaims();
        const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
        return `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(claims)}.`;
      },
    ],
    [
      'HS256 keyed with the published public key (algorithm confusion)',
      async () => {
        const { claims, kid } = await realClaims();
        const jwks = (await client.get('/.well-known/jwks.json')).body as { keys: object[] };
        const secret = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
        return new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid })
          .sign(secret);
      },
    ],
    [
      'an embedded jwk header (self-signed)',
      async () => {
        const { claims } = await realClaims();
        const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
        return new SignJWT(claims)
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', jwk: await exportJWK(publicKey) })
          .sign(privateKey);
      },
    ],
  ])('%s', async (_name, forge) => {
    const response = await client.get(session, { token: await forge() });
    expect(response.status).toBe(401);
  });

  it('refuses tokens of our own signing key with the wrong typ, iss, aud or lifetime', async () => {
    const { SigningKeyService } = await import('#auth');
    const { kid, privateJwk } = await stack.api.get(SigningKeyService).signingKey();
    const privateKey = await importJWK(privateJwk, 'ES256');
    const { claims } = await realClaims();
    const now = Math.floor(Date.now() / 1000);
    const variants: [string, JWTPayload, string][] = [
      ['typ JWT (an ID token or other JWT)', claims, 'JWT'],
      ['another issuer', { ...claims, iss: 'https://evil.example' }, 'at+jwt'],
      ['another audience', { ...claims, aud: 'https://other-api.example' }, 'at+jwt'],
      ['expired', { ...claims, iat: now - 7200, exp: now - 3600 }, 'at+jwt'],
      ['no expiry', { ...claims, exp: undefined }, 'at+jwt'],
      ['no organisation', { ...claims, org_id: undefined }, 'at+jwt'],
      ['an unknown mode', { ...claims, mode: 'root' }, 'at+jwt'],
    ];
    for (const [name, payload, typ] of variants) {
      const token = await new SignJWT(payload)
        .setProtectedHeader({ alg: 'ES256', typ, kid })
        .sign(privateKey);
      expect((await client.get(session, { token })).status, name).toBe(401);
    }
  });
});

describe('GET /v1/user/profile', () => {
  it('is 403 for a client_credentials token, which belongs to no person', async () => {
    const token = await org.token([Scope.Profile]);
    const response = await client.get('/v1/user/profile', { token });
    expect(response.status).toBe(403);
    expect(response.body.error.details.issue).toContain('authorization code');
  });

  it('needs the profile scope', async () => {
    const token = await org.token([Scope.SessionsRead]);
    expect((await client.get('/v1/user/profile', { token })).status).toBe(403);
  });
});
