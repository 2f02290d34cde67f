import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { childEnv, spawnApi, spawnWorker } from './support/processes.js';
import { startStack, type Stack } from './support/stack.js';
import { testDatabaseUrl } from './support/scope.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let token: string;

beforeAll(async () => {
  // Webhooks may point at 127.0.0.1 here: one is needed to reach a stored test delivery.
  stack = await startStack({ worker: false, env: { WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  client = await TestClient.for(stack);
  token = await (await createOrganization(stack, client)).token();
});
afterAll(() => stack?.close());

function expectRefusal(response: ApiResponse, field: string, issue: string | RegExp) {
  expect(response.status, response.text).toBe(400);
  expect(['INVALID_REQUEST', 'VALIDATION_ERROR']).toContain(response.body.error.code);
  expect(response.body.error.request_id).toBe(response.headers.get('x-request-id'));
  expect(response.body.error.details.field).toBe(field);
  if (typeof issue === 'string') expect(response.body.error.details.issue).toBe(issue);
  else expect(response.body.error.details.issue).toMatch(issue);
}

const NUL_ISSUE = 'must not contain the NUL character (U+0000)';

describe('the NUL character', () => {
  it('is refused naming the field, wherever it is in a JSON body', async () => {
    expectRefusal(
      await client.post('/v1/sessions', {
        token,
        json: { type: 'remote_viewing', target: 'before\u0000after' },
      }),
      'target',
      NUL_ISSUE,
    );
    expectRefusal(
      await client.post('/v1/batch/sessions', {
        token,
        json: {
          sessions: [
            { type: 'dowsing', target: 'fine' },
            { session_type: 'dowsing', cue: '\u0000' },
          ],
        },
      }),
      'sessions.1.cue',
      NUL_ISSUE,
    );
    expectRefusal(
      await client.post('/v1/webhooks/wh_01m82sfbpbenftg57hv349pfkd/test', {
        token,
        json: { test_data: { reference: { name: 'a\u0000' } } },
      }),
      'test_data.reference.name',
      NUL_ISSUE,
    );
    expectRefusal(
      await client.post('/v2/sessions/templates', {
        token,
        json: { name: 'Night\u0000shift', type: 'dowsing' },
      }),
      'name',
      NUL_ISSUE,
    );
    // In a field name too: it never reaches validation's "not a recognised field".
    expectRefusal(
      await client.post('/v2/system/notices', {
        token,
        json: { type: 'system.security_alert', title: 't', message: 'm', ['x\u0000']: 1 },
      }),
      'x\u0000',
      NUL_ISSUE,
    );
  });

  it('is refused naming the query parameter or the path parameter, in the version 2 form on v2', async () => {
    const query = await client.get('/v2/sessions?analyst_id=analyst%00one', { token });
    expectRefusal(query, 'analyst_id', NUL_ISSUE);
    expect(query.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      help_url: expect.any(String),
    });
    expectRefusal(await client.get('/v1/sessions?status=%00', { token }), 'status', NUL_ISSUE);
    expectRefusal(await client.get('/v1/oauth-clients/cli_%00', { token }), 'client_id', NUL_ISSUE);
    expectRefusal(
      await client.get('/v2/sessions/templates/tpl_%00', { token }),
      'template_id',
      NUL_ISSUE,
    );
  });

  it('is refused in the OAuth error form at the token endpoint and as a page on the sign-in pages', async () => {
    const tokenRequest = await client.post('/oauth2/token', {
      form: { grant_type: 'client_credentials', client_id: 'cli_\u0000', client_secret: 'x' },
    });
    expect(tokenRequest.status).toBe(400);
    expect(tokenRequest.body).toEqual({
      error: 'invalid_request',
      error_description: `client_id ${NUL_ISSUE}`,
    });
    const page = await client.get('/oauth2/authorize?response_type=code&client_id=%00');
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('invalid_request');
  });

  it('leaves a path no route takes to 404, and refuses malformed percent-encoding in a parameter', async () => {
    expect((await client.get('/v1/sessions%00', { token })).status).toBe(404);
    expectRefusal(
      await client.get('/v1/sessions/sess_%E0%A4%A', { token }),
      'path',
      'is not valid percent-encoding (UTF-8)',
    );
  });
});

describe('unpaired surrogates', () => {
  it('are refused naming the field: a JSON body can carry \\ud800, which jsonb cannot store', async () => {
    const webhook = await client.post('/v1/webhooks', {
      token,
      json: { url: 'https://127.0.0.1:9/hook', events: ['session.completed'] },
    });
    expect(webhook.status).toBe(201);
    // JSON.stringify writes the lone surrogate as the escape \ud800.
    expectRefusal(
      await client.post(`/v1/webhooks/${webhook.body.webhook_id}/test`, {
        token,
        json: { event_type: 'session.completed', test_data: { note: 'before\ud800after' } },
      }),
      'test_data.note',
      'must be well-formed Unicode (an unpaired surrogate such as \\ud800 cannot be stored)',
    );
    expectRefusal(
      await client.post('/v1/sessions', { token, json: { type: 'dowsing', ['\udc00']: 1 } }),
      '\udc00',
      /well-formed Unicode/,
    );
    const paired = await client.post(`/v1/webhooks/${webhook.body.webhook_id}/test`, {
      token,
      json: { event_type: 'session.completed', test_data: { note: 'a pair: 😀' } },
    });
    expect(paired.status).toBe(202);
  });
});

const ONE_LINE = 'must be one line of text: no line breaks, tabs or other control characters';
const FREE_TEXT = 'must not contain control characters other than line breaks and tabs';

describe('control characters in text', () => {
  it.each([
    ['/v1/sessions', { type: 'remote_viewing', target: 'tower\n=cmd|calc' }, 'target'],
    ['/v2/sessions/create', { type: 'dowsing', target: 'well\r=1+1' }, 'target'],
    ['/v2/sessions/templates', { name: 'Night\tshift', type: 'dowsing' }, 'name'],
    [
      '/v2/targets',
      { description: 'A tower', descriptors: ['tall', 'iron\u001b[2J'] },
      'descriptors',
    ],
    [
      '/v2/analysts',
      { email: `ada-${randomBytes(4).toString('hex')}@example.com`, name: 'Ada\u0085' },
      'name',
    ],
    ['/v1/api-keys', { name: 'batch\u007f', scopes: ['remote-viewing:read'] }, 'name'],
  ])('are refused in short text fields (%s), naming the field', async (path, json, field) => {
    expectRefusal(await client.post(path, { token, json }), field, ONE_LINE);
  });

  it('keep line breaks and tabs in free text and refuse the other controls there', async () => {
    expectRefusal(
      await client.post('/v2/targets', { token, json: { description: 'A tower\u0007' } }),
      'description',
      FREE_TEXT,
    );
    const target = await client.post('/v2/targets', {
      token,
      json: { description: 'A tower\n\ton a lawn' },
    });
    expect(target.status, target.text).toBe(201);
  });

  it('are reported by line and field in an imported row', async () => {
    const row = { external_id: 'x-1', type: 'dowsing', date: '2022-01-01', target: 'Well\n=1+1' };
    const response = await client.post('/v2/history/import', {
      token,
      raw: { body: JSON.stringify(row), contentType: 'application/x-ndjson' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      imported: 0,
      failed: 1,
      errors: [{ line: 1, field: 'target', issue: ONE_LINE }],
    });
  });
});

describe('integer query parameters', () => {
  const MALFORMED = ['1e1', '0x10', '%2B5', '5.0', '-1', '%205', '', 'five', '9223372036854775807'];

  it.each([
    ['/v1/sessions', 'limit'],
    ['/v1/sessions', 'offset'],
    ['/v1/api-keys', 'offset'],
    ['/v1/webhooks', 'limit'],
    ['/v1/oauth-clients', 'offset'],
    ['/v2/sessions', 'per_page'],
    ['/v2/events', 'per_page'],
  ])('%s refuses a %s that is not plain decimal digits in range', async (path, name) => {
    for (const value of MALFORMED) {
      const response = await client.get(`${path}?${name}=${value}`, { token });
      expectRefusal(response, name, /^must be an integer between \d+ and \d+$/);
    }
  });

  it('takes plain digits up to the documented maximum offset, and not beyond', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/docs-json`)).json()) as any;
    const offset = document.paths['/v1/sessions'].get.parameters.find(
      (parameter: { name: string }) => parameter.name === 'offset',
    );
    expect(offset.schema).toMatchObject({ type: 'integer', minimum: 0, maximum: 10_000 });
    const deepest = await client.get('/v1/sessions?limit=5&offset=10000', { token });
    expect(deepest.status).toBe(200);
    expect(deepest.body).toMatchObject({ limit: 5, offset: 10_000, results: [] });
    expectRefusal(
      await client.get('/v1/sessions?offset=10001', { token }),
      'offset',
      'must be an integer between 0 and 10000',
    );
  });

  it('reads a confidence score only as JSON writes a number', async () => {
    for (const value of ['', '0x0', '.5', '%2B0.5', '%200.5', '0.5.1', '1e', 'NaN']) {
      expectRefusal(
        await client.get(`/v2/sessions?confidence_score[gt]=${value}`, { token }),
        'confidence_score[gt]',
        'must be a number from 0 to 1',
      );
    }
    for (const value of ['0.8', '1', '0', '5e-2']) {
      const response = await client.get(`/v2/sessions?confidence_score[gt]=${value}`, { token });
      expect(response.status, value).toBe(200);
    }
  });
});

describe('deeply nested bodies', () => {
  /** An object `levels` deep: `{"a": {"a": … 1}}` (the outermost object is level 1). */
  const nested = (levels: number) =>
    `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`.replace(
      /^\{"a":/,
      '{"type":"dowsing","target":"t","a":',
    );

  it('are refused naming the body before validation, however deep (10,000 levels)', async () => {
    for (const levels of [33, 10_000]) {
      expectRefusal(
        await client.post('/v1/sessions', {
          token,
          raw: { body: nested(levels), contentType: 'application/json' },
        }),
        'body',
        'must not be nested more than 32 levels deep',
      );
    }
  });

  it('are read up to 32 levels (this one is refused by validation, for its unknown field)', async () => {
    expectRefusal(
      await client.post('/v1/sessions', {
        token,
        raw: { body: nested(32), contentType: 'application/json' },
      }),
      'a',
      'is not a recognised field',
    );
  });
});

describe('routes', () => {
  it('answer 405 with Allow to another method on a literal path a parameterised route would read as an id', async () => {
    for (const path of ['/v2/sessions/create', '/v2/sessions/collaborative']) {
      // Plain fetch: the contract matches this path to GET /v2/sessions/{session_id}, which it is not.
      const response = await fetch(`${stack.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(((await response.json()) as any).error.code).toBe('METHOD_NOT_ALLOWED');
    }
    expect((await client.get('/v2/sessions/templates', { token })).status).toBe(200);
  });
});

describe('while PostgreSQL cannot be reached', () => {
  it('reads answer 503 SERVICE_UNAVAILABLE with Retry-After, and recover when it is back', async () => {
    const upstream = new URL(testDatabaseUrl());
    const proxy = await TcpProxy.start({
      host: upstream.hostname,
      port: Number(upstream.port || 5432),
    });
    const viaProxy = new URL(upstream);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const proxied = await startStack({ worker: false, env: { DATABASE_URL: viaProxy.toString() } });
    try {
      const proxiedClient = await TestClient.for(proxied);
      const org = await createOrganization(proxied, proxiedClient);
      const [orgToken, apiKey] = [await org.token(), await org.apiKey()];
      const created = await proxiedClient.post('/v1/sessions', {
        token: orgToken,
        json: { type: 'dowsing', target: 'The well on the north field' },
      });
      expect(created.status).toBe(201);
      const id = created.body.session_id as string;

      await proxy.cut();
      for (const [path, credential] of [
        [`/v1/sessions/${id}`, { token: orgToken }],
        [`/v2/sessions/${id}`, { apiKey }],
        ['/v1/sessions', { token: orgToken }],
      ] as const) {
        const response = await proxiedClient.get(path, credential);
        expect(response.status, `${path}: ${response.text}`).toBe(503);
        expect(response.headers.get('retry-after')).toBe('5');
        expect(response.body.error).toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
          message: expect.any(String),
          request_id: response.headers.get('x-request-id'),
        });
        expect(response.text).not.toMatch(/ECONNREFUSED|terminated|5432|postgres/i);
      }
      // The authorization server's answer, in OAuth's form: before the provider (the default
      // scope is looked up) and inside it (the client is authenticated).
      for (const scope of [undefined, 'remote-viewing:read']) {
        const token = await proxiedClient.post('/oauth2/token', {
          form: {
            grant_type: 'client_credentials',
            client_id: org.clientId,
            client_secret: org.clientSecret,
            ...(scope ? { scope } : {}),
          },
        });
        expect(token.status, token.text).toBe(503);
        expect(token.headers.get('retry-after')).toBe('5');
        expect(token.body).toEqual({
          error: 'temporarily_unavailable',
          error_description: expect.any(String),
        });
      }

      await proxy.restore();
      const recovered = await waitFor(async () => {
        const response = await proxiedClient.get(`/v1/sessions/${id}`, { token: orgToken });
        return response.status === 200 ? response : null;
      });
      expect(recovered.body.session_id).toBe(id);
    } finally {
      await proxy.restore();
      await proxied.close();
      await proxy.cut();
    }
  });
});

/** A trigger that refuses `operation` on `table` for one organisation's rows only, so nothing else notices. */
async function refuseFor(
  database: pg.Client,
  table: string,
  operation: 'INSERT' | 'UPDATE',
  organizationUuid: string,
): Promise<() => Promise<void>> {
  const name = `refuse_for_test_${randomBytes(4).toString('hex')}`;
  await database.query(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN RAISE EXCEPTION 'refused by the test trigger'; END $$`,
  );
  await database.query(
    `CREATE TRIGGER ${name} BEFORE ${operation} ON ${table} FOR EACH ROW
       WHEN (NEW.organization_id = '${organizationUuid}') EXECUTE FUNCTION ${name}()`,
  );
  return async () => {
    await database.query(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
    await database.query(`DROP FUNCTION IF EXISTS ${name}()`);
  };
}

/** The JSON log line of `output` that satisfies `wanted`, once it is there. */
function logLine(output: () => string, wanted: (line: string) => boolean): Promise<any> {
  return waitFor(async () => {
    const line = output().split('\n').find(wanted);
    return line === undefined ? null : JSON.parse(line);
  });
}

describe('the access log', () => {
  it('at info has a line per request with its id, method, URL and status, never a credential', async () => {
    const org = await createOrganization(stack, client);
    const api = await spawnApi(childEnv({ LOG_LEVEL: 'info' }));
    try {
      await api.ready;
      const key = await org.apiKey();
      const response = await fetch(`${api.url}/v1/sessions?limit=1`, {
        headers: { 'x-api-key': key, cookie: 'sas_session=cookie-that-must-not-be-logged' },
      });
      expect(response.status).toBe(200);
      const requestId = response.headers.get('x-request-id')!;
      const logged = await logLine(
        api.output,
        (line) => line.includes(requestId) && line.includes('"res"'),
      );
      expect(logged.req).toEqual({ id: requestId, method: 'GET', url: '/v1/sessions?limit=1' });
      expect(logged.res).toEqual({ statusCode: 200 });
      expect(logged.organizationId).toBe(org.organizationId);
      expect(api.output()).not.toContain(key);
      expect(api.output()).not.toContain('cookie-that-must-not-be-logged');

      // An invitation token in the path and search text in the query are credentials and
      // personal data: the line names the route and the parameter, not the value.
      const requests = {
        '/invitations/inv_token-that-must-not-be-logged': '/invitations/[redacted]',
        '/v2/history/search?q=search-that-must-not-be-logged&limit=5':
          '/v2/history/search?q=[redacted]&limit=5',
      };
      for (const [path, shown] of Object.entries(requests)) {
        const sent = await fetch(`${api.url}${path}`, { headers: { 'x-api-key': key } });
        const id = sent.headers.get('x-request-id')!;
        const line = await logLine(
          api.output,
          (text) => text.includes(id) && text.includes('"res"'),
        );
        expect(line.req).toMatchObject({ id, url: shown });
      }
      expect(api.output()).not.toContain('token-that-must-not-be-logged');
      expect(api.output()).not.toContain('search-that-must-not-be-logged');
    } finally {
      await api.kill('SIGTERM');
    }
  });
});

describe('the log of a failed statement', () => {
  it('has its error code and text, never its parameters (API)', async () => {
    const org = await createOrganization(stack, client);
    const marker = `marker-${randomBytes(6).toString('hex')}`;
    const database = new pg.Client({ connectionString: testDatabaseUrl() });
    await database.connect();
    const api = await spawnApi(childEnv({ LOG_LEVEL: 'error' }));
    let allow: () => Promise<void> = async () => {};
    try {
      await api.ready;
      allow = await refuseFor(database, 'oauth_clients', 'INSERT', org.organizationId);
      // Plain fetch: a 500 is what this test provokes, and the contract documents none.
      // An API key: the in-process stack's access tokens name another issuer than the child.
      const response = await fetch(`${api.url}/v1/oauth-clients`, {
        method: 'POST',
        headers: { 'x-api-key': await org.apiKey(), 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: marker,
          grant_types: ['client_credentials'],
          scope: 'remote-viewing:read',
        }),
      });
      expect(response.status).toBe(500);
      const body = (await response.json()) as any;
      expect(JSON.stringify(body)).not.toMatch(/trigger|oauth_clients/);
      const requestId = body.error.request_id as string;
      const logged = await logLine(
        api.output,
        (line) => line.includes(requestId) && line.includes('unhandled error'),
      );
      expect(logged.err).toMatchObject({
        type: 'DatabaseError',
        code: 'P0001',
        message: 'refused by the test trigger',
        query: expect.stringContaining('INSERT INTO oauth_clients'),
      });
      // The statement's parameters held the client's name and its secret's hash.
      expect(api.output()).not.toContain(marker);
      expect(api.output()).not.toMatch(/"parameters"|"detail"|"driverError"|scrypt\$/);
    } finally {
      await allow();
      await database.end();
      await api.kill('SIGTERM');
    }
  });

  it('has its error code and text, never its parameters (worker)', async () => {
    const org = await createOrganization(stack, client);
    const database = new pg.Client({ connectionString: testDatabaseUrl() });
    await database.connect();
    const worker = await spawnWorker(childEnv({ LOG_LEVEL: 'warn' }));
    let allow: () => Promise<void> = async () => {};
    try {
      await worker.ready;
      // The outbox relay marks events relayed with their ids as the statement's parameters.
      allow = await refuseFor(database, 'events', 'UPDATE', org.organizationId);
      const created = await client.post('/v1/sessions', {
        token: await org.token(),
        json: { type: 'dowsing', target: 'The well on the north field' },
      });
      expect(created.status).toBe(201);
      // Whatever the relay calls its failed pass, the line is the one with the trigger's words.
      const logged = await logLine(worker.output, (line) =>
        line.includes('refused by the test trigger'),
      );
      expect(logged.err).toMatchObject({
        type: 'DatabaseError',
        code: 'P0001',
        message: 'refused by the test trigger',
        query: expect.stringContaining('UPDATE events'),
      });
      const { rows } = await database.query<{ id: string }>(
        'SELECT id FROM events WHERE organization_id = $1',
        [org.organizationId],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const { id } of rows) expect(worker.output()).not.toContain(id);
      expect(worker.output()).not.toMatch(/"parameters"|"driverError"/);
    } finally {
      await allow();
      await database.end();
      await worker.kill('SIGTERM');
    }
  });
});
