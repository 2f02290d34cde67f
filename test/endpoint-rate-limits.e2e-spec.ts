import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizationRequest,
  CookieJar,
  discover,
  operatorToken,
  registerCodeClient,
} from './support/authorization.js';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

// Counters of their own (a prefix of this file's), so no other test file's requests count here.
let stack: Stack;
let client: TestClient;
let spa: Awaited<ReturnType<typeof registerCodeClient>>;

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    env: {
      REDIS_PREFIX: `sas-test-endpoint-rates-${randomBytes(4).toString('hex')}`,
      TOKEN_RATE_PER_CLIENT: '3',
      TOKEN_RATE_PER_ADDRESS: '6',
      SIGN_IN_RATE_PER_ADDRESS: '2',
    },
  });
  client = await TestClient.for(stack);
  // The address's first token request of six.
  spa = await registerCodeClient(client, await operatorToken(client), { public: true });
});
afterAll(() => stack?.close());

describe('the token endpoint', () => {
  it('limits requests per client, then per source address, whatever their outcome', async () => {
    const [first, second] = [
      await createOrganization(stack, client),
      await createOrganization(stack, client),
    ];
    const tokenRequest = (org: typeof first, secret = org.clientSecret) =>
      client.post('/oauth2/token', {
        form: {
          grant_type: 'client_credentials',
          client_id: org.clientId,
          client_secret: secret,
        },
      });
    expect((await tokenRequest(first)).status).toBe(200);
    expect((await tokenRequest(first, 'wrong-secret')).status).toBe(401);
    expect((await tokenRequest(first)).status).toBe(200);
    const perClient = await tokenRequest(first);
    expect(perClient.status).toBe(429);
    expect(perClient.body).toMatchObject({ error: 'temporarily_unavailable' });
    expect(Number(perClient.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another client from the same address: the address has 1 request left of its 6.
    expect((await tokenRequest(second)).status).toBe(200);
    expect((await tokenRequest(second)).status).toBe(429);
  });
});

describe('the sign-in form', () => {
  it('limits submissions per source address', async () => {
    const as: oauth.AuthorizationServer = await discover(stack.baseUrl);
    const jar = new CookieJar();
    const { url } = await authorizationRequest(as, spa);
    const redirect = await jar.fetch(url);
    const page = new URL(redirect.headers.get('location')!, stack.baseUrl);
    await jar.fetch(page);
    const submit = () =>
      jar.fetch(`${page.href}/login`, {
        method: 'POST',
        form: { email: 'nobody@example.test', password: 'wrong' },
      });
    expect((await submit()).status).toBe(401);
    expect((await submit()).status).toBe(401);
    const refused = await submit();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.text()).toContain('Too many sign-in attempts');
  });
});
