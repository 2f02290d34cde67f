import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routerLayers } from '../apps/api/src/http/prefix-routing.js';
import { TestClient } from './support/client.js';
import { operationsOf } from './support/openapi-document.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

let stack: Stack;
let client: TestClient;
let token: string;

beforeAll(async () => {
  stack = await startStack({ worker: false, env: { BODY_LIMIT: '2kb' } });
  client = await TestClient.for(stack);
  token = await (await createOrganization(stack, client)).token();
});
afterAll(() => stack?.close());

function expectEnvelope(
  response: { status: number; headers: Headers; body: any },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status);
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toMatch(/^req_[0-9a-z]{26}$/);
  expect(response.body).toEqual({
    error: {
      code,
      message: expect.any(String),
      details: expect.any(Object),
      request_id: requestId,
    },
  });
}

describe('request ids', () => {
  it('gives every response a new X-Request-Id', async () => {
    const [a, b] = await Promise.all([client.get('/health/live'), client.get('/health/live')]);
    expect(a.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('echoes a well-formed incoming request id and replaces a malformed one', async () => {
    const mine = 'req_01m82sfbpbenftg57hv349pfkd';
    expect(
      (await client.get('/health/live', { headers: { 'x-request-id': mine } })).headers.get(
        'x-request-id',
      ),
    ).toBe(mine);
    const replaced = await client.get('/health/live', { headers: { 'x-request-id': '<script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
  });
});

describe('error envelope for every kind of error', () => {
  it('unknown route → 404 NOT_FOUND', async () => {
    expectEnvelope(await client.get('/v1/nothing-here', { token }), 404, 'NOT_FOUND');
  });

  it('wrong method on a known path → 405 with Allow', async () => {
    const response = await client.request('DELETE', '/oauth2/token');
    expectEnvelope(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('malformed JSON → 400 INVALID_REQUEST naming the body', async () => {
    const response = await client.post('/v1/sessions', {
      token,
      raw: { body: '{"type": "remote_viewing",', contentType: 'application/json' },
    });
    expectEnvelope(response, 400, 'INVALID_REQUEST');
    expect(response.body.error.details).toEqual({ field: 'body', issue: 'malformed JSON' });
  });

  it('body over the limit → 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await client.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: 'x'.repeat(4000) },
    });
    expectEnvelope(response, 413, 'PAYLOAD_TOO_LARGE');
    expect(response.body.error.details.field).toBe('body');
  });

  it('body that is not JSON → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const response = await client.post('/v1/sessions', {
      token,
      raw: { body: 'type=remote_viewing', contentType: 'text/plain' },
    });
    expectEnvelope(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(response.body.error.details.field).toBe('Content-Type');
  });

  it('errors never carry the success headers of the route', async () => {
    const response = await client.get(
      '/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd/sketches/0.svg',
      { token },
    );
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('routing', () => {
  it('reaches every documented operation through the prefix groups, walking few layers', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/docs-json`)).json()) as any;
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(150);
    for (const operation of operations) {
      const path = operation.path.replace(/\{[^}]+\}/g, 'x1');
      // No credential: a route that is found answers its guard's 401 (or its own answer), never
      // the not-found handler's 404 or 405.
      const response = await fetch(`${stack.baseUrl}${path}`, { method: operation.method });
      const label = `${operation.method} ${path}`;
      expect(response.status, label).not.toBe(405);
      expect(await response.text(), label).not.toContain('unknown route');
    }
    // Express's own list holds the groups, not the routes: a request tries a few dozen layers,
    // not one per route before its own.
    const express = stack.api.getHttpAdapter().getInstance();
    const routes = routerLayers(express).filter((layer) => layer.route);
    expect(routes.length).toBeGreaterThan(150);
    expect((express as { router: { stack: unknown[] } }).router.stack.length).toBeLessThan(40);
  });
});

describe('version 2 error form', () => {
  it('names duration_minutes with the allowed range and suggests the nearest bound', async () => {
    const response = await client.post('/v2/sessions/create', {
      token,
      json: { type: 'remote_viewing', target: 'x', duration_minutes: 300 },
    });
    expectEnvelopeV2(response, 400, 'VALIDATION_ERROR');
    expect(response.body.error.details).toMatchObject({
      field: 'duration_minutes',
      issue: 'must be an integer between 5 and 180',
      suggested_value: 180,
    });
    expect(response.body.error.help_url).toBe(`${stack.baseUrl}/docs/errors#validation_error`);
    const help = await fetch(response.body.error.help_url);
    expect(help.status).toBe(200);
    expect(await help.text()).toContain('id="validation_error"');
  });

  it('suggests the closest enum value', async () => {
    const response = await client.post('/v2/sessions/create', {
      token,
      json: { type: 'remote_veiwing', target: 'x' },
    });
    expect(response.body.error.details).toMatchObject({
      field: 'type',
      suggested_value: 'remote_viewing',
    });
  });

  it('gives suggested_value null where there is nothing to suggest', async () => {
    const response = await client.post('/v2/sessions/create', {
      token,
      json: { type: 'dowsing', target: '' },
    });
    expect(response.body.error.details).toMatchObject({ field: 'target', suggested_value: null });
  });

  it('uses the v2 form for unknown v2 routes and auth errors too', async () => {
    expectEnvelopeV2(await client.get('/v2/nothing-here', { token }), 404, 'NOT_FOUND');
    expectEnvelopeV2(
      await client.get('/v2/sessions/sess_01m82sfbpbenftg57hv349pfkd'),
      401,
      'UNAUTHORIZED',
    );
  });
});

function expectEnvelopeV2(
  response: { status: number; headers: Headers; body: any },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status);
  expect(response.body.error).toMatchObject({
    code,
    request_id: response.headers.get('x-request-id'),
    help_url: expect.stringContaining('/docs/errors#'),
  });
  expect(response.body.error.details).toHaveProperty('suggested_value');
}
