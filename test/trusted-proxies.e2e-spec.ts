import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

// The client's address behind a load balancer: X-Forwarded-For is believed only from
// TRUSTED_PROXIES. Every request here comes from 127.0.0.1, as from a proxy on the same host.

interface Api {
  stack: Stack;
  client: TestClient;
  org: TestOrganization;
}

const apis: Api[] = [];

async function api(env: Record<string, string> = {}): Promise<Api> {
  const stack = await startStack({ worker: false, env });
  const client = await TestClient.for(stack);
  const entry = { stack, client, org: await createOrganization(stack, client) };
  apis.push(entry);
  return entry;
}

let behindLocalProxy: Api;
let behindOtherProxies: Api;

beforeAll(async () => {
  behindLocalProxy = await api();
  behindOtherProxies = await api({ TRUSTED_PROXIES: '10.0.0.0/8' });
});

afterAll(async () => {
  for (const { stack } of apis) await stack.close();
});

/** A client-credentials grant as forwarded for `clientAddress`. */
function tokenRequest({ client, org }: Api, secret: string, clientAddress: string) {
  return client.post('/oauth2/token', {
    form: { grant_type: 'client_credentials', client_id: org.clientId, client_secret: secret },
    headers: { 'x-forwarded-for': clientAddress },
  });
}

describe('TRUSTED_PROXIES', () => {
  it('by default (loopback) counts wrong secrets per forwarded client address', async () => {
    for (let i = 0; i < 10; i += 1) {
      expect((await tokenRequest(behindLocalProxy, 'wrong', '203.0.113.1')).status).toBe(401);
    }
    const org = behindLocalProxy.org;
    expect((await tokenRequest(behindLocalProxy, org.clientSecret, '203.0.113.1')).status).toBe(
      429,
    );
    // The same client from another address is not held back by the first one's guesses.
    expect((await tokenRequest(behindLocalProxy, org.clientSecret, '203.0.113.2')).status).toBe(
      200,
    );
  });

  it('ignores X-Forwarded-For from a proxy it does not name: the connection is the client', async () => {
    for (let i = 0; i < 10; i += 1) {
      expect((await tokenRequest(behindOtherProxies, 'wrong', '203.0.113.1')).status).toBe(401);
    }
    // Claiming another address changes nothing: every request counts as 127.0.0.1's.
    const refused = await tokenRequest(
      behindOtherProxies,
      behindOtherProxies.org.clientSecret,
      '203.0.113.2',
    );
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('temporarily_unavailable');
  });
});
