import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Scope } from '#common';
import { EVENT_LISTEN_PATH } from '../apps/api/src/live/event-listen-messages.js';
import { LIVE_UPDATES_PATH } from '../apps/api/src/live/session-updates.gateway.js';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import {
  documentedExamples,
  operationsOf,
  requestBodyOf,
  resolve,
  type Operation,
} from './support/openapi-document.js';
import { deleteRedisKeys } from './support/global-setup.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * Conventions every response keeps, checked across the route table (the
 * served OpenAPI document, and Express's own routes where a path is not in
 * it): request-limit headers, where a 401 or 403 looked, what OPTIONS
 * allows, what a WebSocket path answers without a handshake, and how an
 * array of objects holding something else is refused.
 */

/** Small enough to tell the address budget's headers from an organisation's (enterprise: 6,000). */
const ADDRESS_BUDGET = 100_000;

let stack: Stack;
let client: TestClient;
let document: any;
let operations: Operation[];
let token: string;

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    env: { ANONYMOUS_RATE_PER_ADDRESS: String(ADDRESS_BUDGET) },
  });
  client = await TestClient.for(stack);
  document = (await (await fetch(`${stack.baseUrl}/docs-json`)).json()) as any;
  operations = operationsOf(document);
  token = await (await createOrganization(stack, client)).token();
});
afterAll(() => stack?.close());

/** A documented path with every parameter filled in (`/v1/sessions/x1`). */
function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, 'x1');
}

function send(method: string, path: string, headers: Record<string, string> = {}) {
  return fetch(`${stack.baseUrl}${path}`, { method, headers, redirect: 'manual' });
}

function limitHeadersOf(response: Response) {
  return {
    limit: Number(response.headers.get('x-ratelimit-limit')),
    remaining: Number(response.headers.get('x-ratelimit-remaining')),
    reset: Number(response.headers.get('x-ratelimit-reset')),
  };
}

function expectLimitHeaders(response: Response, label: string, limit: number) {
  const now = Math.floor(Date.now() / 1000);
  const headers = limitHeadersOf(response);
  expect(headers.limit, label).toBe(limit);
  expect(headers.remaining, label).toBeGreaterThanOrEqual(0);
  expect(headers.remaining, label).toBeLessThan(limit);
  expect(headers.reset, label).toBeGreaterThan(now - 1);
  expect(headers.reset, label).toBeLessThanOrEqual(now + 61);
}

describe('request limit headers', () => {
  it('are documented on every response of every operation, with a 429 in the envelope', () => {
    for (const operation of operations) {
      const responses = operation.spec.responses as Record<string, any>;
      for (const [status, response] of Object.entries(responses)) {
        for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
          expect(
            response.headers?.[name],
            `${operation.method} ${operation.path} ${status}`,
          ).toBeDefined();
        }
      }
      // In the envelope, unless the route's own 429 names no media type (a sign-in page).
      const limited = responses['429'];
      expect(limited, `${operation.method} ${operation.path}`).toBeDefined();
      if (limited.content) {
        expect(
          limited.content['application/json'],
          `${operation.method} ${operation.path}`,
        ).toBeDefined();
      }
    }
  });

  it('come with every documented operation, counted per address without a valid credential', async () => {
    expect(operations.length).toBeGreaterThan(150);
    for (const operation of operations) {
      const path = concrete(operation.path);
      for (const headers of [{}, { authorization: 'Bearer not-a-credential' }] as Record<
        string,
        string
      >[]) {
        const response = await send(operation.method, path, headers);
        const label = `${operation.method} ${path} ${JSON.stringify(headers)} → ${response.status}`;
        expectLimitHeaders(response, label, ADDRESS_BUDGET);
        await response.body?.cancel();
      }
    }
  });

  it('come with every documented read, counted against the organisation with a valid credential', async () => {
    for (const operation of operations.filter((o) => o.method === 'GET')) {
      const path = concrete(operation.path);
      const response = await send('GET', path, { authorization: `Bearer ${token}` });
      expectLimitHeaders(response, `GET ${path} → ${response.status}`, 6000);
      await response.body?.cancel();
    }
  });

  it('come with 401s, unknown routes, wrong methods, body errors and public endpoints', async () => {
    const authenticated = { authorization: `Bearer ${token}` };
    const cases: [string, string, Record<string, string>, number, number][] = [
      ['GET', '/v1/sessions', {}, 401, ADDRESS_BUDGET],
      ['GET', '/v1/sessions', { 'x-api-key': 'sk_live_unknown' }, 401, ADDRESS_BUDGET],
      ['GET', '/v1/no-such-route', authenticated, 404, 6000],
      ['GET', '/v1/no-such-route', {}, 404, ADDRESS_BUDGET],
      ['DELETE', '/v2/sessions/create', authenticated, 405, 6000],
      ['GET', '/health/live', {}, 200, ADDRESS_BUDGET],
      ['GET', '/health/ready', {}, 200, ADDRESS_BUDGET],
      ['GET', '/.well-known/jwks.json', {}, 200, ADDRESS_BUDGET],
      ['GET', '/.well-known/oauth-authorization-server', {}, 200, ADDRESS_BUDGET],
      ['GET', '/docs-json', {}, 200, ADDRESS_BUDGET],
      ['GET', '/docs/errors', {}, 200, ADDRESS_BUDGET],
      // A valid credential on a public endpoint counts against its organisation.
      ['GET', '/health/live', authenticated, 200, 6000],
    ];
    for (const [method, path, headers, status, limit] of cases) {
      const response = await send(method, path, headers);
      const label = `${method} ${path} ${JSON.stringify(headers)}`;
      expect(response.status, label).toBe(status);
      expectLimitHeaders(response, label, limit);
      await response.body?.cancel();
    }
    const tokenEndpoint = await fetch(`${stack.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody&client_secret=wrong',
    });
    expect(tokenEndpoint.status).toBe(401);
    expectLimitHeaders(tokenEndpoint, 'POST /oauth2/token', ADDRESS_BUDGET);
    const malformed = await fetch(`${stack.baseUrl}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"type": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('refuse requests over the address budget with 429, while valid credentials count on their own', async () => {
    const budget = 5;
    // A Redis namespace of its own: the main stack's requests from this address count elsewhere.
    const redisPrefix = `address-${randomBytes(4).toString('hex')}`;
    const small = await startStack({
      worker: false,
      env: { ANONYMOUS_RATE_PER_ADDRESS: String(budget), REDIS_PREFIX: redisPrefix },
    });
    try {
      const apiKey = await (await createOrganization(small, client)).apiKey();
      const statuses: number[] = [];
      let refused: Response | undefined;
      for (let i = 0; i <= budget + 1 && refused === undefined; i++) {
        const response = await fetch(`${small.baseUrl}/health/live`);
        if (response.status === 429) refused = response;
        else statuses.push(response.status);
        expect(limitHeadersOf(response)).toMatchObject({
          limit: budget,
          remaining: Math.max(0, budget - i - 1),
        });
      }
      expect(statuses).toEqual(Array.from({ length: budget }, () => 200));
      expect(refused).toBeDefined();
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await refused!.json()) as any).error).toMatchObject({
        code: 'RATE_LIMITED',
        details: { field: 'requests_per_minute_per_address', limit: budget, window: 'minute' },
      });
      // An invalid credential counts against the address too.
      const invalid = await fetch(`${small.baseUrl}/v1/sessions`, {
        headers: { 'x-api-key': 'sk_live_unknown' },
      });
      expect(invalid.status).toBe(429);
      // The token endpoint refuses in OAuth's form.
      const tokenEndpoint = await fetch(`${small.baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=x&client_secret=y',
      });
      expect(tokenEndpoint.status).toBe(429);
      expect(await tokenEndpoint.json()).toMatchObject({ error: 'temporarily_unavailable' });
      expect(tokenEndpoint.headers.get('retry-after')).not.toBeNull();
      // A valid credential is counted against its organisation, whatever its address used up.
      const served = await fetch(`${small.baseUrl}/v1/sessions`, {
        headers: { 'x-api-key': apiKey },
      });
      expect(served.status).toBe(200);
      expect(limitHeadersOf(served).limit).toBe(6000);
    } finally {
      await small.close();
      await deleteRedisKeys(`${redisPrefix}:`);
    }
  });
});

describe('where a 401 or 403 looked: details.field', () => {
  it('names Authorization for every documented operation called without a credential', async () => {
    for (const operation of operations.filter((o) => o.spec.security?.length > 0)) {
      const path = concrete(operation.path);
      // In the documented media type: a route that streams its body checks the type first.
      const mediaType = Object.keys(operation.spec.requestBody?.content ?? {})[0];
      const response = await send(
        operation.method,
        path,
        mediaType ? { 'content-type': mediaType } : {},
      );
      const label = `${operation.method} ${path}`;
      expect(response.status, label).toBe(401);
      expect(((await response.json()) as any).error.details, label).toMatchObject({
        field: 'Authorization',
        issue: expect.any(String),
      });
    }
  });

  it('names the header a bad credential came in', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ authorization: 'Basic dXNlcjpwYXNz' }, 'Authorization'],
      [{ authorization: 'Bearer not-a-token' }, 'Authorization'],
      [{ authorization: 'Bearer sk_live_unknownunknownunknown' }, 'Authorization'],
      [{ 'x-api-key': 'sk_live_unknownunknownunknown' }, 'X-API-Key'],
      [{ 'x-api-key': 'malformed' }, 'X-API-Key'],
    ];
    for (const [headers, field] of cases) {
      const response = await client.get('/v2/sessions', { headers });
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.body.error.details, JSON.stringify(headers)).toMatchObject({
        field,
        issue: expect.any(String),
      });
    }
  });

  it('names the scope, the mode or the credential a 403 needs', async () => {
    const org = await createOrganization(stack, client);
    const narrow = await org.token([Scope.Profile]);
    const missingScope = await client.post('/v1/sessions', {
      token: narrow,
      json: { type: 'dowsing', target: 'x' },
    });
    expect(missingScope.status).toBe(403);
    expect(missingScope.body.error.details).toMatchObject({
      field: 'scope',
      required_scopes: [Scope.SessionsWrite],
    });

    const apiKeyOnly = await client.post('/v1/api-keys', {
      apiKey: await org.apiKey(),
      json: { name: 'k', scopes: [Scope.Profile] },
    });
    expect(apiKeyOnly.status).toBe(403);
    expect(apiKeyOnly.body.error.details).toMatchObject({ field: 'Authorization' });

    const liveOnly = operations.find(
      (operation) => operation.spec['x-live-only'] && operation.method !== 'GET',
    )!;
    const testToken = await (await createOrganization(stack, client, 'test')).token();
    const refused = await client.request(liveOnly.method, concrete(liveOnly.path), {
      token: testToken,
      json: {},
    });
    expect(refused.status, `${liveOnly.method} ${liveOnly.path}`).toBe(403);
    expect(refused.body.error.details).toMatchObject({ field: 'mode' });
  });
});

describe('OPTIONS', () => {
  it('lists in Allow only methods the path answers (never 405), for every documented path', async () => {
    const paths = [...new Set(operations.map((operation) => concrete(operation.path)))];
    const wrong: string[] = [];
    for (const path of paths) {
      const options = await send('OPTIONS', path);
      const allow = (options.headers.get('allow') ?? '').split(/,\s*/).filter(Boolean);
      await options.body?.cancel();
      expect(allow.length, path).toBeGreaterThan(0);
      for (const method of allow.filter((m) => m !== 'OPTIONS')) {
        // No credential: a route that takes the method answers its own 401 (or more), never 405.
        const response = await send(method, path);
        if (response.status === 405) wrong.push(`${method} ${path} (Allow: ${allow.join(', ')})`);
        await response.body?.cancel();
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers a fixed path beside a parameterised one with its own methods', async () => {
    const response = await send('OPTIONS', '/v1/analysis/batch');
    expect(response.headers.get('allow')).toBe('POST');
    await response.body?.cancel();
  });
});

describe('WebSocket paths without a handshake', () => {
  for (const [path, version2] of [
    [LIVE_UPDATES_PATH, false],
    [EVENT_LISTEN_PATH, true],
  ] as const) {
    it(`answers GET ${path} 426 Upgrade Required, with and without a credential`, async () => {
      for (const headers of [{}, { authorization: `Bearer ${token}` }] as Record<
        string,
        string
      >[]) {
        const response = await send('GET', path, headers);
        expect(response.status).toBe(426);
        expect(response.headers.get('upgrade')).toBe('websocket');
        expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
        const body = (await response.json()) as any;
        expect(body.error).toMatchObject({
          code: 'UPGRADE_REQUIRED',
          details: { field: 'Upgrade', issue: expect.any(String) },
          request_id: response.headers.get('x-request-id'),
        });
        expect('help_url' in body.error).toBe(version2);
      }
      expect((await send('HEAD', path)).status).toBe(426);
      // At the sandbox base too.
      const sandbox = await send('GET', `/sandbox${path}`);
      expect(sandbox.status).toBe(426);
      await sandbox.body?.cancel();
      const post = await send('POST', path, { authorization: `Bearer ${token}` });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
      await post.body?.cancel();
    });
  }

  it('still takes the WebSocket handshake', async () => {
    const socket = new WebSocket(`${stack.baseUrl.replace('http', 'ws')}${LIVE_UPDATES_PATH}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await new Promise<void>((accepted, refused) => {
      socket.once('open', () => accepted());
      socket.once('error', refused);
    });
    socket.close();
  });
});

describe('arrays of objects holding something else', () => {
  it('refuses a null, number, string or array item of the dowsing batch naming its place', async () => {
    for (const [json, field] of [
      [{ queries: [null] }, 'queries.0'],
      [{ queries: [{ variant: 'query', question: 'Is it here?' }, 7] }, 'queries.1'],
      [{ queries: ['text'] }, 'queries.0'],
      [{ queries: [[]] }, 'queries.0'],
      [
        {
          queries: [
            {
              variant: 'multi_point',
              question: 'Where?',
              points: [{ latitude: 1, longitude: 1 }, null],
            },
          ],
        },
        'queries.0.points.1',
      ],
    ] as const) {
      const response = await client.post('/v2/dowsing/batch', { token, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { field, issue: 'must be an object' },
      });
    }
  });

  it('refuses a null item in every top-level array of objects of every documented body', async () => {
    let checked = 0;
    for (const operation of operations) {
      const body = requestBodyOf(document, operation);
      if (body?.mediaType !== 'application/json') continue;
      for (const [property, schema] of Object.entries<any>(body.schema.properties ?? {})) {
        const items = resolve(document, resolve(document, schema).items);
        if (resolve(document, schema).type !== 'array') continue;
        if (!(items.type === 'object' || items.properties || items.oneOf || items.allOf)) continue;
        const example = documentedExamples(document, operation)[0]?.value as object | undefined;
        const response = await client.request(operation.method, concrete(operation.path), {
          token,
          json: { ...example, [property]: [null] },
        });
        const label = `${operation.method} ${operation.path} ${property}`;
        expect(response.status, label).toBe(400);
        expect(response.body.error.details, label).toMatchObject({
          field: `${property}.0`,
          issue: 'must be an object',
        });
        checked++;
      }
    }
    // The batches of sessions, analyses and dowsing queries, at least.
    expect(checked).toBeGreaterThanOrEqual(4);
  });
});
