import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scope } from '#common';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * The published source addresses (WEBHOOK_SOURCE_ADDRESSES, issue 38): every
 * delivery's socket is bound to one of them, in turn, and the API lists them
 * for receivers to allow-list. Linux routes all of 127.0.0.0/8 to the loopback
 * interface, so 127.0.0.2 is a local address a socket can be bound to.
 */
const SOURCES = ['127.0.0.1', '127.0.0.2'];

let ca: TestCertificateAuthority;
let stack: Stack;
let client: TestClient;
let receiver: HttpsReceiver;
let org: TestOrganization;
let token: string;

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  stack = await startStack({
    env: {
      OUTBOUND_EXTRA_CA_FILE: ca.caFile,
      // A name, so deliveries go through the policy's resolver; an IPv6 literal for the other family.
      OUTBOUND_PRIVATE_ALLOWLIST: 'localhost,::1',
      WEBHOOK_SOURCE_ADDRESSES: SOURCES.join(','),
    },
  });
  client = await TestClient.for(stack);
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
  org = await createOrganization(stack, client);
  token = await org.token();
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await ca?.cleanup();
});

async function register(url: string): Promise<string> {
  const created = await client.post('/v1/webhooks', {
    token,
    json: { url, events: ['session.completed'] },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.webhook_id as string;
}

describe('published webhook source addresses', () => {
  it('bind each delivery to the next address in turn', async () => {
    // localhost, not 127.0.0.1: the socket's name is resolved by the destination policy, to the
    // family of the source addresses (the receiver listens on 127.0.0.1 only).
    const webhookId = await register(`https://localhost:${receiver.port}/hooks`);
    const from: (string | undefined)[] = [];
    for (let sent = 1; sent <= 4; sent++) {
      const test = await client.post(`/v1/webhooks/${webhookId}/test`, { token, json: {} });
      expect(test.status, test.text).toBe(202);
      const requests = await receiver.waitForRequests(sent);
      from.push(requests[sent - 1]!.remoteAddress);
    }
    expect(from).toEqual([...SOURCES, ...SOURCES]);
  });

  it('refuse a receiver of the other family, saying why', async () => {
    const webhookId = await register(`https://[::1]:${receiver.port}/hooks`);
    const test = await client.post(`/v1/webhooks/${webhookId}/test`, { token, json: {} });
    expect(test.status, test.text).toBe(202);
    const attempt = await waitFor(async () => {
      const read = await client.get(`/v1/webhooks/${webhookId}/deliveries`, { token });
      return read.body.results[0]?.attempts[0] ?? null;
    });
    expect(attempt).toMatchObject({
      status_code: null,
      error: 'the host is an IPv6 address, and connections leave from IPv4 source addresses',
    });
  });

  it('are listed for any valid credential', async () => {
    // A key holding one scope that has nothing to do with webhooks.
    const key = await org.apiKey([Scope.DowsingRead]);
    const listed = await client.get('/v2/webhooks/source-addresses', { apiKey: key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual({ addresses: SOURCES });
    expect((await client.get('/v2/webhooks/source-addresses')).status).toBe(401);
  });

  it('are an empty list when none are published', async () => {
    const plain = await startStack({ worker: false });
    try {
      const plainClient = await TestClient.for(plain);
      const other = await createOrganization(plain, plainClient);
      const listed = await plainClient.get('/v2/webhooks/source-addresses', {
        token: await other.token(),
      });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body).toEqual({ addresses: [] });
    } finally {
      await plain.close();
    }
  });
});
