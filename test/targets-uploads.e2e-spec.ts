import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * Multipart bodies through the real API's body parsing: refused (415) on
 * every route but the submissions of results, which get them unread — with
 * or without an Idempotency-Key. (The submissions themselves, sketches
 * included, are tested with the analyst workflow.)
 */
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
afterAll(async () => {
  await stack?.close();
});

/** A real multipart body as the platform's FormData writes it. */
async function multipart(): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append('descriptors', 'tall');
  form.append(
    'sketches',
    new Blob(['<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>']),
    'a.svg',
  );
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}

function send(path: string, body: { body: Buffer; contentType: string }, headers = {}) {
  return fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    body: body.body,
    headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType, ...headers },
  });
}

describe('multipart/form-data bodies', () => {
  it('are refused on routes that take JSON', async () => {
    for (const path of ['/v2/targets', '/v2/sessions/create', '/v2/sessions/sess_x/merge']) {
      const response = await send(path, await multipart());
      expect(response.status, path).toBe(415);
      expect(((await response.json()) as any).error.details.field).toBe('Content-Type');
    }
  });

  it('reach the results routes unread, with or without an Idempotency-Key', async () => {
    for (const path of [
      '/v2/sessions/sess_01jh2x7v4ke8rbk3a8y0v0d7qz/results',
      '/v2/analysis/anal_01jh2x7v4ke8rbk3a8y0v0d7qz/results',
      '/v2/dowsing/queries/dowse_01jh2x7v4ke8rbk3a8y0v0d7qz/results',
    ]) {
      for (const headers of [{}, { 'idempotency-key': `multipart-${path}` }]) {
        const response = await send(path, await multipart(), headers);
        // Past body parsing and the body's own checks: the route answers that the work is unknown.
        expect(response.status, `${path} ${JSON.stringify(headers)}`).toBe(404);
      }
    }
  });
});
