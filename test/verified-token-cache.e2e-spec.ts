import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import * as oauth from 'oauth4webapi';
import { decodeProtectedHeader, importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scope } from '#common';
import { SigningKeyService, VerifiedTokenCache } from '#auth';
import {
  authorizationRequest,
  authorizeAs,
  clientAuthentication,
  discover,
  exchangeCallback,
  insecure,
} from './support/authorization.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient } from './support/people.js';
import { startStack, testEnv, type Stack } from './support/stack.js';
import { DEADLINE_MS, REVOCATION_DEADLINE_MS } from './support/wait.js';

/**
 * The verified-token cache (issue 42) across two API instances on one
 * database and Redis, as a deployment runs them: a token each has cached is
 * refused by both once its grant is revoked, its person disabled or its
 * signing key withdrawn, each within the bound it had without the cache.
 */

let a: Stack;
let b: Stack;
/** One client per instance. */
let instances: TestClient[];
let org: TestOrganization;

beforeAll(async () => {
  a = await startStack({ worker: false });
  // The same service at the same public address: what one instance issues, both accept.
  b = await startStack({ worker: false, env: { PUBLIC_URL: a.baseUrl } });
  const bUrl = `http://127.0.0.1:${(b.api.getHttpServer().address() as AddressInfo).port}`;
  instances = [await TestClient.for(a), await TestClient.for({ baseUrl: bUrl })];
  org = await createOrganization(a, instances[0]!);
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

const cacheOf = (stack: Stack) => stack.api.get(VerifiedTokenCache);
const read = (instance: TestClient, token: string) =>
  instance.get('/v1/sessions', { token }).then((response) => response.status);

/** Both instances accept `token`, and each holds it in its cache afterwards. */
async function cachedOnBoth(token: string): Promise<void> {
  const key = VerifiedTokenCache.keyOf(token);
  for (const [index, instance] of instances.entries()) {
    expect(await read(instance, token)).toBe(200);
    expect(cacheOf([a, b][index]!).get(key)).not.toBeNull();
  }
}

const run = promisify(execFile);
const REGISTER = new URL('./support/ts-register.mjs', import.meta.url).href;

/** `npm run signing-keys -- <args>` (from the sources) with this file's database and Redis: its output. */
async function signingKeys(...args: string[]): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ['--import', REGISTER, 'apps/cli/src/signing-keys.ts', ...args],
    { env: { PATH: process.env.PATH, ...testEnv() }, timeout: DEADLINE_MS },
  );
  return stdout;
}

/** A person of `org` signed in through the code flow: their tokens (with a grant). */
async function personTokens() {
  const member = await addMember(a, org, ['admin']);
  const codeClient = await memberClient(instances[0]!, org, [
    Scope.SessionsRead,
    Scope.OrganizationsRead,
  ]);
  const as = await discover(a.baseUrl);
  const request = await authorizationRequest(as, codeClient);
  const callback = await authorizeAs(a.baseUrl, request.url, member);
  return {
    member,
    codeClient,
    as,
    tokens: await exchangeCallback(as, codeClient, callback, request),
  };
}

describe('a repeated token', () => {
  it('is verified once per instance, and a token made from a cached one with other claims is not taken for it', async () => {
    const token = await org.token([Scope.SessionsRead]);
    const before = cacheOf(a).usage();
    expect(await read(instances[0]!, token)).toBe(200);
    expect(await read(instances[0]!, token)).toBe(200);
    // One verification (a miss), then one answer from memory.
    expect(cacheOf(a).usage()).toMatchObject({
      entries: before.entries + 1,
      misses: before.misses + 1,
      hits: before.hits + 1,
    });
    // An operator sees it on /metrics.
    const metrics = (await instances[0]!.get('/metrics')).text;
    for (const name of ['entries', 'bytes', 'hits_total', 'misses_total'])
      expect(metrics).toMatch(new RegExp(`^access_token_cache_${name} [1-9]\\d*$`, 'm'));

    // The cached token's signature on a payload granting more: the key is the whole token's hash.
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    const widened = Buffer.from(
      JSON.stringify({ ...claims, scope: `${claims.scope} ${Scope.SessionsWrite}` }),
    ).toString('base64url');
    const forged = await instances[0]!.get('/v1/sessions', {
      token: `${header}.${widened}.${signature}`,
    });
    expect(forged.status).toBe(401);
    expect(forged.body.error.details.issue).toBe('access token signature is invalid');
  });

  it('is never used at or after its exp', async () => {
    // A token of the service's own key that expires in two seconds (the server issues hour-long ones).
    const signing = await a.api.get(SigningKeyService).signingKey();
    const real = JSON.parse(
      Buffer.from((await org.token([Scope.SessionsRead])).split('.')[1]!, 'base64url').toString(),
    );
    const expiresAt = Math.floor(Date.now() / 1000) + 2;
    const token = await new SignJWT({ ...real, exp: expiresAt })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signing.kid })
      .sign(await importJWK(signing.privateJwk, 'ES256'));
    await cachedOnBoth(token);
    for (const instance of instances) {
      await expect
        .poll(() => instance.get('/v1/sessions', { token }), {
          timeout: DEADLINE_MS,
          interval: 100,
        })
        .toMatchObject({
          status: 401,
          body: { error: { details: { issue: 'access token expired' } } },
        });
    }
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(expiresAt);
  });
});

describe('what ends a cached token on every instance', () => {
  it('a revoked grant: at once, as before the cache (the grant is asked about on every use)', async () => {
    const { codeClient, as, tokens } = await personTokens();
    await cachedOnBoth(tokens.access_token!);
    const revoked = await oauth.revocationRequest(
      as,
      codeClient,
      clientAuthentication(codeClient),
      tokens.refresh_token!,
      insecure,
    );
    await oauth.processRevocationResponse(revoked);
    for (const instance of instances) {
      const refused = await instance.get('/v1/sessions', { token: tokens.access_token });
      expect(refused.status).toBe(401);
      expect(refused.body.error.details.issue).toBe('access token revoked');
    }
  });

  it('a reused refresh token (its whole family revoked): at once', async () => {
    const { codeClient, as, tokens } = await personTokens();
    const refresh = (token: string) =>
      oauth.refreshTokenGrantRequest(
        as,
        codeClient,
        clientAuthentication(codeClient),
        token,
        insecure,
      );
    const second = (await (await refresh(tokens.refresh_token!)).json()) as {
      access_token: string;
    };
    await cachedOnBoth(tokens.access_token!);
    await cachedOnBoth(second.access_token);
    expect((await refresh(tokens.refresh_token!)).status).toBe(400);
    for (const instance of instances) {
      expect(await read(instance, tokens.access_token!)).toBe(401);
      expect(await read(instance, second.access_token)).toBe(401);
    }
  });

  it('a disabled person: at once (the person is read on every use)', async () => {
    const { member, tokens } = await personTokens();
    await cachedOnBoth(tokens.access_token!);
    const disabled = await instances[1]!.patch(`/v2/analysts/${member.analystId}`, {
      token: await org.liveToken(),
      json: { disabled: true },
    });
    expect(disabled.status, disabled.text).toBe(200);
    for (const instance of instances) expect(await read(instance, tokens.access_token!)).toBe(401);
  });

  it('a withdrawn signing key: within the revocation deadline, through the announced key set', async () => {
    const token = await org.token([Scope.SessionsRead]);
    const withdrawn = decodeProtectedHeader(token).kid!;
    await cachedOnBoth(token);
    // As an operator would: the signing-keys command, a process of its own.
    const listed = await signingKeys('list');
    expect(listed).toContain(withdrawn);
    const said = await signingKeys('withdraw', withdrawn);
    const replacement = new RegExp(`^withdrew ${withdrawn}; (\\S+) signs from now`).exec(said)?.[1];
    expect(replacement, said).toBeDefined();
    await expect(signingKeys('withdraw', withdrawn)).rejects.toThrow(`no signing key ${withdrawn}`);
    for (const instance of instances) {
      await expect
        .poll(() => instance.get('/v1/sessions', { token }), {
          timeout: REVOCATION_DEADLINE_MS,
          interval: 20,
        })
        .toMatchObject({
          status: 401,
          body: { error: { details: { issue: 'access token signed by an unknown key' } } },
        });
    }
    // Both sign with the replacement now, and accept each other's tokens.
    for (const instance of instances) {
      const issued = await instance.post('/oauth2/token', {
        form: {
          grant_type: 'client_credentials',
          client_id: org.clientId,
          client_secret: org.clientSecret,
          scope: Scope.SessionsRead,
        },
      });
      const fresh = issued.body.access_token as string;
      expect(decodeProtectedHeader(fresh).kid).toBe(replacement);
      for (const other of instances) expect(await read(other, fresh)).toBe(200);
    }
  });

  it('a withdrawn key that no longer signs: its tokens refused, the signing key left as it is', async () => {
    const old = await org.token([Scope.SessionsRead]);
    const oldKid = decodeProtectedHeader(old).kid!;
    // A rotation that takes effect at once: the old key retires but still verifies its tokens.
    const newKid = await a.api.get(SigningKeyService).rotate(0);
    await cachedOnBoth(old);
    expect(await signingKeys('withdraw', oldKid)).toBe(
      `withdrew ${oldKid}; every instance was told\n`,
    );
    for (const instance of instances) {
      await expect
        .poll(async () => await read(instance, old), {
          timeout: REVOCATION_DEADLINE_MS,
          interval: 20,
        })
        .toBe(401);
    }
    const fresh = await org.token([Scope.SessionsRead]);
    expect(decodeProtectedHeader(fresh).kid).toBe(newKid);
    for (const instance of instances) expect(await read(instance, fresh)).toBe(200);
  });

  it('a revoked API key: within the revocation deadline (the key cache, unchanged)', async () => {
    const created = await instances[0]!.post('/v1/api-keys', {
      token: await org.token(),
      json: { name: 'cached on both', scopes: [Scope.SessionsRead] },
    });
    expect(created.status).toBe(201);
    const { id, key } = created.body as { id: string; key: string };
    for (const instance of instances)
      expect((await instance.get('/v1/sessions', { apiKey: key })).status).toBe(200);
    expect(
      (await instances[1]!.post(`/v1/api-keys/${id}/revoke`, { token: await org.token() })).status,
    ).toBe(200);
    for (const instance of instances) {
      await expect
        .poll(async () => (await instance.get('/v1/sessions', { apiKey: key })).status, {
          timeout: REVOCATION_DEADLINE_MS,
          interval: 20,
        })
        .toBe(401);
    }
  });
});
