import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toPublicId } from '#common';
import { operatorToken } from './support/authorization.js';
import { type ApiResponse, TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import {
  documentedExamples,
  label,
  operationsOf,
  requestBodyOf,
  resolve,
  type Operation,
} from './support/openapi-document.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Swagger UI's "Try it out" sends an operation's documented example as it
 * stands, so every request example must be a request the server accepts.
 * This sends each of them, for every operation with a request body, with a
 * credential holding every scope, against real resources, and expects 2xx.
 */

let ca: TestCertificateAuthority;
let stack: Stack;
let client: TestClient;
let receiver: HttpsReceiver;
let org: TestOrganization;
let token: string;
let operator: string;
let document: any;
/** What @nestjs/swagger warned of while the API built its document. */
let documentWarnings: string[];

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  const warn = vi.spyOn(Logger, 'warn');
  try {
    stack = await startStack({
      env: { WEBHOOK_EXTRA_CA_FILE: ca.caFile, WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1' },
    });
    documentWarnings = warn.mock.calls.map(([message]) => String(message));
  } finally {
    warn.mockRestore();
  }
  client = await TestClient.for(stack);
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
  org = await createOrganization(stack, client);
  token = await org.token();
  operator = await operatorToken(client);
  document = await (await fetch(`${stack.baseUrl}/docs-json`)).json();
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await ca?.cleanup();
});

/**
 * What the examples cannot carry and the test supplies, each for a stated reason:
 * real resources in the path, and these few values of the body.
 */
const EXPLICIT: Record<string, string> = {
  'POST /v1/webhooks':
    'url: a receiver of this test (the example host does not resolve without outside DNS)',
  'POST /v2/webhooks': 'url: as above',
  'PUT /v1/webhooks/{webhook_id}': 'url: as above',
  'POST /v2/enterprise/organizations/{organization_id}/sso-connections':
    'url: a directory address of this machine, allow-listed here (the example host does not resolve without outside DNS)',
  'POST /v2/sessions/{session_id}/merge':
    'session_ids: a real completed session on the same target as the one in the path',
  'POST /v2/system/notices':
    'sent with the operator’s token (operator only); organization_id added: announcing to every organisation would reach other tests’ data in the shared database',
  'POST /v2/enterprise/organizations': 'sent with the operator’s token (operator only)',
  'PATCH /v2/enterprise/organizations/{organization_id}':
    'sent with the operator’s token (operator only)',
  'POST /v2/sessions/{session_id}/results':
    'answers 409 naming engine: every session here is run by the simulated engine, which takes no submissions',
  'POST /v2/analysis/{analysis_id}/results':
    'answers 409 naming engine: the analysis here is run by the simulated engine, which takes no submissions (test/analyst-analyses.e2e-spec.ts sends real ones)',
  'POST /v2/dowsing/queries/{query_id}/results':
    'answers 409 naming engine: the query here was answered by the simulated engine (test/analyst-dowsing.e2e-spec.ts sends real submissions)',
  'POST /v2/analysts':
    'email: a fresh address (an email is one account across the service, so a second send of the same one is 409)',
  'POST /v2/judging-tasks/{judging_task_id}/ranking':
    'answers 403: ranking acts for the signed-in judge of a task, and a task’s candidate ids are made when it opens (test/judging.e2e-spec.ts sends real rankings)',
  'POST /v2/assignments/{assignment_id}/decline':
    'answers 403: declining acts for the signed-in analyst of an assignment (test/analyst-tasking.e2e-spec.ts declines real ones)',
  'POST /oauth2/token': 'form: a real client’s id and secret (no document can hold a secret)',
  'POST /oauth2/revoke': 'form: as above',
  'POST /oauth2/introspect': 'form: as above',
};

/** Real resources for path parameters, made once. */
const resources = new Map<string, Promise<string>>();
function resource(name: string, make: () => Promise<string>): Promise<string> {
  if (!resources.has(name)) resources.set(name, make());
  return resources.get(name)!;
}

async function created(response: ApiResponse, field: string): Promise<string> {
  expect(response.status, response.text).toBeLessThan(300);
  return response.body[field] as string;
}

async function completedSession(target: string): Promise<string> {
  const id = await created(
    await client.post('/v2/sessions/create', { token, json: { type: 'dowsing', target } }),
    'session_id',
  );
  await waitFor(async () => {
    const session = await client.get(`/v2/sessions/${id}`, { token });
    return session.body.status === 'completed' ? true : null;
  });
  return id;
}

const MERGE_TARGET = 'The well on the north field';

async function pathValue(name: string, operation: Operation): Promise<string> {
  switch (name) {
    case 'key_id':
      return resource('key', async () =>
        created(
          await client.post('/v1/api-keys', {
            token,
            json: { name: 'to rotate', scopes: ['remote-viewing:read'] },
          }),
          'id',
        ),
      );
    case 'client_id':
      return resource('client', async () =>
        created(
          await client.post('/v1/oauth-clients', {
            token,
            json: {
              client_name: 'to change',
              grant_types: ['client_credentials'],
              scope: 'profile',
            },
          }),
          'client_id',
        ),
      );
    case 'webhook_id':
      return resource(operation.path.slice(0, 3), async () =>
        created(
          await client.post(`${operation.path.slice(0, 3)}/webhooks`, {
            token,
            json: { url: receiver.url, events: ['session.completed'] },
          }),
          'webhook_id',
        ),
      );
    case 'session_id':
      return resource('session', () => completedSession(MERGE_TARGET));
    case 'organization_id':
      // SSO connections and SCIM tokens are managed by the organisation itself.
      if (managedByOrganization(operation.path)) {
        return toPublicId('organization', org.organizationId);
      }
      return resource('organization', async () =>
        created(
          await client.post('/v2/enterprise/organizations', {
            token: operator,
            json: { name: 'Examples test' },
          }),
          'id',
        ),
      );
    case 'connection_id':
      return resource('sso connection', async () =>
        created(
          await client.post(
            `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/sso-connections`,
            {
              token,
              json: {
                type: 'ldap',
                name: 'to change',
                email_domains: ['examples-test.example.com'],
                url: 'ldaps://127.0.0.1:1',
                bind_dn: 'cn=sas,dc=example,dc=com',
                bind_password: 'a password',
                user_base_dn: 'ou=people,dc=example,dc=com',
                user_filter: '(mail={username})',
              },
            },
          ),
          'id',
        ),
      );
    case 'analyst_id':
      return resource('analyst', async () =>
        created(
          await client.post('/v2/analysts', {
            token,
            json: {
              email: `examples.${randomBytes(4).toString('hex')}@example.test`,
              roles: ['analyst'],
            },
          }),
          'analyst_id',
        ),
      );
    case 'case_id':
      // A dowsing query is answered in the request, and its case written with it.
      return resource('case', async () => {
        await created(
          await client.post('/v1/dowsing/query', {
            token,
            json: {
              query_type: 'yes_no',
              question: 'Is the brass lantern in the attic?',
              // Answered at once: by now the organisation has an analyst, who would be the default.
              engine: 'simulated',
            },
          }),
          'query_id',
        );
        const found = await client.get('/v1/history/search?q=lantern', { token });
        return found.body.results[0].id as string;
      });
    case 'analysis_id':
      return resource('analysis', async () =>
        created(
          await client.post('/v1/analysis/targets', {
            token,
            json: { target_type: 'object', description: 'The sealed box', engine: 'simulated' },
          }),
          'analysis_id',
        ),
      );
    case 'query_id':
      return resource('query', async () =>
        created(
          await client.post('/v1/dowsing/query', {
            token,
            json: { query_type: 'yes_no', question: 'Is the box sealed?', engine: 'simulated' },
          }),
          'query_id',
        ),
      );
    case 'scim_token_id':
      return resource('scim token', async () =>
        created(
          await client.post(
            `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/scim-tokens`,
            { token, json: { name: 'examples' } },
          ),
          'id',
        ),
      );
    case 'judging_task_id':
      // Judging tasks are a judge's (a person's); see EXPLICIT.
      return toPublicId('judgingTask', '01936d5e-6b0a-7c3e-9d4f-2a1b3c4d5e6f');
    case 'assignment_id':
      // Assignments are an analyst's (a person's); see EXPLICIT.
      return toPublicId('assignment', '01936d5e-6b0a-7c3e-9d4f-2a1b3c4d5e6f');
    default:
      throw new Error(`${label(operation)}: no real resource for {${name}}; add one here`);
  }
}

/** The body to send for an example: the example itself, but for the EXPLICIT values. */
async function bodyFor(operation: Operation, example: unknown): Promise<any> {
  const body = structuredClone(example) as any;
  if (/\/webhooks(\/\{webhook_id\})?$/.test(operation.path) && body.url !== undefined) {
    expect(new URL(body.url).protocol, 'the documented receiver is https').toBe('https:');
    body.url = receiver.url;
  }
  if (operation.path.endsWith('/sso-connections') && body.type === 'ldap') {
    body.url = body.url.replace(/^(ldaps?:\/\/)[^/:]+/, '$1127.0.0.1');
  }
  if (operation.path.endsWith('/merge')) {
    body.session_ids = [await resource('other session', () => completedSession(MERGE_TARGET))];
  }
  if (operation.path === '/v2/analysts' && body.email !== undefined) {
    body.email = `${randomBytes(4).toString('hex')}.${body.email}`;
  }
  if (operation.path === '/v2/system/notices') {
    body.organization_id = toPublicId('organization', org.organizationId);
  }
  return body;
}

/** Enterprise routes an organisation calls for itself, not the operator for it. */
function managedByOrganization(path: string): boolean {
  return path.includes('/sso-connections') || path.includes('/scim-tokens');
}

function credentialFor(operation: Operation) {
  const operatorOnly =
    /^\/v2\/(enterprise\/organizations|system\/notices)/.test(operation.path) &&
    !managedByOrganization(operation.path);
  return { token: operatorOnly ? operator : token };
}

async function sendExample(operation: Operation, example: unknown): Promise<ApiResponse> {
  let path = operation.path;
  for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
    path = path.replace(`{${name}}`, await pathValue(name!, operation));
  }
  return client.request(operation.method, path, {
    ...credentialFor(operation),
    json: await bodyFor(operation, example),
  });
}

/**
 * The OAuth endpoints take forms; their documented sample is sent with a real
 * client's id and secret in place of the placeholders (no document can hold a
 * working secret). An unknown token is a valid request to revoke (RFC 7009
 * §2.2) and to introspect (`active: false`).
 */
async function sendOAuthForm(operation: Operation): Promise<ApiResponse> {
  const examples = documentedExamples(document, operation);
  expect(examples).toHaveLength(1);
  const form = Object.fromEntries(
    Object.entries(examples[0]!.value as Record<string, unknown>).map(([name, value]) => [
      name,
      String(value),
    ]),
  );
  return client.post(operation.path, {
    form: { ...form, client_id: org.clientId, client_secret: org.clientSecret },
  });
}

/**
 * A body of text in a media type of its own (NDJSON, CSV): every example of
 * every media type the operation documents, sent as it stands. Returns the failures.
 */
async function sendTextExamples(operation: Operation): Promise<string[]> {
  const failures: string[] = [];
  const content = operation.spec.requestBody.content as Record<
    string,
    { examples?: Record<string, { value: unknown }> }
  >;
  for (const [mediaType, media] of Object.entries(content)) {
    const examples = Object.entries(media.examples ?? {});
    if (examples.length === 0) failures.push(`${label(operation)} (${mediaType}): no example`);
    for (const [name, { value }] of examples) {
      expect(typeof value, `${label(operation)} (${mediaType}) example ${name}`).toBe('string');
      const response = await client.request(operation.method, operation.path, {
        ...credentialFor(operation),
        raw: { body: value as string, contentType: mediaType },
      });
      if (response.status >= 300) {
        failures.push(
          `${label(operation)} (${mediaType}, example "${name}") → ${response.status} ${response.text}`,
        );
      }
    }
  }
  return failures;
}

describe('every documented request example', () => {
  it('is accepted as it stands (2xx), for every operation with a request body', async () => {
    const withBodies = operationsOf(document).filter((operation) =>
      requestBodyOf(document, operation),
    );
    const exercised = new Set<string>();
    const failures: string[] = [];
    for (const operation of withBodies) {
      const { mediaType } = requestBodyOf(document, operation)!;
      if (mediaType === 'application/x-www-form-urlencoded') {
        const response = await sendOAuthForm(operation);
        if (response.status >= 300) failures.push(`${label(operation)} → ${response.status}`);
        exercised.add(label(operation));
        continue;
      }
      if (mediaType !== 'application/json') {
        failures.push(...(await sendTextExamples(operation)));
        exercised.add(label(operation));
        continue;
      }
      for (const { name, value } of documentedExamples(document, operation)) {
        const response = await sendExample(operation, value);
        if (
          [
            'POST /v2/sessions/{session_id}/results',
            'POST /v2/analysis/{analysis_id}/results',
            'POST /v2/dowsing/queries/{query_id}/results',
          ].includes(label(operation))
        ) {
          expect(response.status).toBe(409);
          expect(response.body.error.details.field).toBe('engine');
        } else if (
          [
            'POST /v2/judging-tasks/{judging_task_id}/ranking',
            'POST /v2/assignments/{assignment_id}/decline',
          ].includes(label(operation))
        ) {
          expect(response.status, response.text).toBe(403);
        } else if (response.status >= 300) {
          failures.push(
            `${label(operation)} (example "${name}") → ${response.status} ${response.text}`,
          );
        }
      }
      exercised.add(label(operation));
    }
    expect(failures).toEqual([]);
    expect([...exercised].sort()).toEqual(withBodies.map(label).sort());
    // Every special case above is an operation that exists (a renamed one would go unnoticed).
    for (const name of Object.keys(EXPLICIT)) expect(exercised, name).toContain(name);
  });
});

describe('request schemas', () => {
  it('refuse unknown fields, as the server does, for every JSON request body', async () => {
    const refusedAt: string[] = [];
    for (const operation of operationsOf(document)) {
      const body = requestBodyOf(document, operation);
      if (!body || body.mediaType !== 'application/json') continue;
      // The one body documented as open: analyst submissions, taken as they come.
      if (body.schema.additionalProperties === true) continue;
      expect(body.schema.additionalProperties, label(operation)).toBe(false);
      const [example] = documentedExamples(document, operation);
      const response = await sendExample(operation, {
        ...(example!.value as object),
        not_a_field: 1,
      });
      expect(response.status, `${label(operation)}: ${response.text}`).toBe(400);
      expect(response.body.error.details.field).toBe('not_a_field');
      expect(response.body.error.details.issue).toBe('is not a recognised field');
      refusedAt.push(label(operation));
    }
    expect(refusedAt.length).toBeGreaterThanOrEqual(20);
  });

  it('refuse unknown fields in nested objects too (a batch item)', async () => {
    const operation = operationsOf(document).find(
      (candidate) => label(candidate) === 'POST /v1/batch/sessions',
    )!;
    const items = resolve(
      document,
      requestBodyOf(document, operation)!.schema.properties.sessions.items,
    );
    expect(items.additionalProperties).toBe(false);
    const response = await client.post('/v1/batch/sessions', {
      token,
      json: { sessions: [{ type: 'dowsing', target: 'x', not_a_field: 1 }] },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('sessions.0.not_a_field');
  });

  it('state the bounds validation enforces', () => {
    const schemas = document.components.schemas;
    expect(schemas.CreateApiKeyDto.properties.scopes).toMatchObject({ minItems: 1, maxItems: 15 });
    expect(schemas.MergeSessionsV2Dto.properties.session_ids).toMatchObject({
      minItems: 1,
      maxItems: 19,
      uniqueItems: true,
      items: { type: 'string', maxLength: 64 },
    });
    expect(schemas.CreateSessionV2Dto.properties.template_id).toMatchObject({ maxLength: 64 });
    expect(schemas.RotateWebhookSecretDto.properties.secret.pattern).toBe(
      '^[\\x21-\\x7e]{24,256}$',
    );
    const replay = operationsOf(document).find(
      (operation) => label(operation) === 'GET /v2/webhooks/events/replay',
    )!;
    expect(
      replay.spec.parameters.find((parameter: any) => parameter.name === 'webhook_id').schema,
    ).toMatchObject({ maxLength: 64 });
  });
});

describe('the document', () => {
  it('gives each schema name one schema (two DTOs of one name would leave one of them undocumented)', () => {
    expect(documentWarnings.filter((message) => /Duplicate DTO/.test(message))).toEqual([]);
    expect(resolve(document, { $ref: '#/components/schemas/TargetCoordinatesDto' })).toMatchObject({
      properties: { latitude: { minimum: -90, maximum: 90 } },
    });
  });

  it('names each path template once, whatever its parameters are called', () => {
    const shapes = Object.keys(document.paths).map((path) => path.replace(/\{[^}]+\}/g, '{}'));
    const repeated = shapes.filter((shape, index) => shapes.indexOf(shape) !== index);
    expect(repeated).toEqual([]);
  });

  it("answers a sketch's errors as JSON, as it says", async () => {
    const response = await client.get(
      '/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd/sketches/0.svg',
      { token },
    );
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    const responses = document.paths['/v1/sessions/{session_id}/sketches/{file}'].get.responses;
    expect(Object.keys(responses['200'].content)).toEqual([
      'image/svg+xml',
      'image/png',
      'image/jpeg',
    ]);
    for (const status of ['400', '401', '403', '404', '429', '503']) {
      expect(Object.keys(responses[status].content), status).toEqual(['application/json']);
    }
  });
});
