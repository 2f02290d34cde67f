import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, toPublicId } from '#common';
import { EVENT_TYPES } from '#events';
import { BUILT_IN_TEMPLATES } from '#sessions';
import { TestClient } from './support/client.js';
import { Contract } from './support/contract.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import {
  invalidBody,
  NASTY_QUERY_VALUES,
  NASTY_STRINGS,
  validValue,
  type InvalidBody,
  type SchemaContext,
} from './support/openapi-arbitraries.js';
import { label, operationsOf, requestBodyOf, type Operation } from './support/openapi-document.js';
import { startStack, type Stack } from './support/stack.js';
import { DEADLINE_MS, waitFor } from './support/wait.js';

/**
 * Walks every operation of the served OpenAPI document with generated
 * requests — valid ones built from its schemas (with real ids where they
 * matter) and invalid ones (wrong types, out of range, unknown and missing
 * fields, odd and huge text, NUL, deep nesting, malformed bodies, strict
 * integer parameters), with a credential holding every scope and with weaker
 * or no credentials — and fails on any 5xx and on any answer outside the
 * document (status, media type, schema). It asserts that it exercised every
 * operation the document lists.
 *
 * FUZZ_RUNS (default 25) requests per operation from a fixed seed, FUZZ_SEED
 * to try another; a failure prints the request that caused it. FUZZ_REPORT=1
 * prints the statuses each operation answered (how deep the requests got).
 */
const RUNS = positive(process.env.FUZZ_RUNS, 25);
const SEED = positive(process.env.FUZZ_SEED, 20_260_601);

function positive(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return raw !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}

let ca: TestCertificateAuthority;
let receiver: HttpsReceiver;
let stack: Stack;
let contract: Contract;
let document: any;
let org: TestOrganization;
let credentials: Record<Credential, Record<string, string>>;
let pathIds: Record<string, string[]>;
let context: SchemaContext;
const cursors: string[] = [];
/** Its own Redis namespace: the sign-in limits it trips (failed attempts per address) stay its own. */
const redisPrefix = `fuzz-${randomBytes(4).toString('hex')}`;

type Credential = 'full' | 'narrow key' | 'none' | 'garbage';

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
  stack = await startStack({
    env: {
      REDIS_PREFIX: redisPrefix,
      WEBHOOK_EXTRA_CA_FILE: ca.caFile,
      WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
    },
  });
  contract = await Contract.load(stack.baseUrl);
  document = contract.document;
  const client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  const token = await org.token();
  credentials = {
    full: { authorization: `Bearer ${token}` },
    'narrow key': { 'x-api-key': await org.apiKey(['profile']) },
    none: {},
    garbage: { authorization: 'Bearer not-a-credential' },
  };
  pathIds = await fixtures(client, token);
  context = { document, hints: hints(token) };
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await ca?.cleanup();
  await deleteRedisKeys(redisPrefix);
});

/** Real resources, so generated requests reach past "not found". */
async function fixtures(client: TestClient, token: string): Promise<Record<string, string[]>> {
  const auth = { token };
  const made = async (path: string, json: unknown, field: string) => {
    const response = await client.post(path, { ...auth, json });
    expect(response.status, `${path}: ${response.text}`).toBeLessThan(300);
    return response.body[field] as string;
  };
  // Public, so the public read finds it too.
  const session = await made(
    '/v1/sessions',
    { type: 'remote_viewing', target: 'fuzz', privacy_level: 'public' },
    'session_id',
  );
  const webhookV1 = await made('/v1/webhooks', { url: receiver.url, events: ['*'] }, 'webhook_id');
  const webhookV2 = await made('/v2/webhooks', { url: receiver.url, events: ['*'] }, 'webhook_id');
  const delivery = await made(`/v1/webhooks/${webhookV1}/test`, {}, 'delivery_id');
  await waitFor(async () => {
    const read = await client.get(`/v1/sessions/${session}`, auth);
    return read.body.status === 'completed' ? true : null;
  });
  const events = await client.get('/v2/events?per_page=1', auth);
  // Cursors this service issued (each list's own kind), to page past the first page.
  for (const list of [
    '/v2/sessions',
    '/v2/webhooks',
    '/v2/events',
    '/v2/webhooks/{webhook_id}/deliveries',
  ]) {
    const page = await client.get(`${list.replace('{webhook_id}', webhookV1)}?per_page=1`, auth);
    if (page.body.pagination?.next_cursor) cursors.push(page.body.pagination.next_cursor);
  }
  return {
    session_id: [session],
    batch_id: [
      await made(
        '/v1/batch/sessions',
        { sessions: [{ type: 'dowsing', target: 'fuzz' }] },
        'batch_id',
      ),
    ],
    template_id: [
      await made('/v2/sessions/templates', { name: 'fuzz', type: 'dowsing' }, 'template_id'),
      toPublicId('sessionTemplate', BUILT_IN_TEMPLATES[0]!.id),
    ],
    key_id: [await made('/v1/api-keys', { name: 'fuzz', scopes: ['profile'] }, 'id')],
    client_id: [
      await made(
        '/v1/oauth-clients',
        { client_name: 'fuzz', scope: 'profile', grant_types: ['client_credentials'] },
        'client_id',
      ),
    ],
    organization_id: [toPublicId('organization', org.organizationId)],
    webhook_id: [webhookV1, webhookV2],
    delivery_id: [delivery],
    event_id: [events.body.data[0].id],
    file: ['0.svg', '1.svg', '99.svg', 'x.png'],
    uid: ['unknown-interaction'],
    analyst_id: [
      await made(
        '/v2/analysts',
        { email: `fuzz.${randomBytes(4).toString('hex')}@example.test` },
        'analyst_id',
      ),
    ],
  };
}

/** Values by field or parameter name that reach further than the schema alone would. */
function hints(token: string): Record<string, fc.Arbitrary<unknown>> {
  return {
    url: fc.constantFrom(
      receiver.url,
      'https://example.com/hooks',
      'http://insecure.example/hooks',
      'https://127.0.0.2/hooks',
      'https://user:pw@example.com/',
      'https://[::1]/x',
    ),
    events: fc.oneof(
      fc.subarray([...EVENT_TYPES], { minLength: 1 }),
      fc.constant(['*']),
      fc.constant(['no.such_event']),
    ),
    session_ids: fc.constant(pathIds.session_id),
    template_id: fc.constantFrom(...pathIds.template_id!, 'tpl_01jh2x7v4ke8rbk3a8y0v0d7qz'),
    organization_id: fc.constantFrom(...pathIds.organization_id!, 'org_01jh2x7v4ke8rbk3a8y0v0d7qz'),
    webhook_id: fc.constantFrom(...pathIds.webhook_id!),
    since_event_id: fc.constantFrom(...pathIds.event_id!),
    scope: fc.constantFrom(
      'remote-viewing:read',
      'profile email',
      ALL_SCOPES.join(' '),
      'nonsense',
    ),
    scopes: fc.subarray([...ALL_SCOPES], { minLength: 1 }),
    client_id: fc.constantFrom(org.clientId, 'cli_01jh2x7v4ke8rbk3a8y0v0d7qz'),
    client_secret: fc.constantFrom(org.clientSecret, 'wrong'),
    token: fc.constantFrom(token, 'not-a-token'),
    redirect_uris: fc.constantFrom(['https://app.example.com/cb'], ['http://127.0.0.1:8765/cb']),
    expires_at: fc.constantFrom('2099-01-01T00:00:00Z', '2000-01-01T00:00:00Z'),
    ...(cursors.length > 0 ? { cursor: fc.constantFrom(...cursors) } : {}),
  };
}

interface Case {
  credential: Credential;
  path: Record<string, string>;
  query: [string, string][];
  body?: { json?: unknown; raw?: InvalidBody['raw']; form?: Record<string, string> };
  idempotencyKey?: string;
  /** What made it invalid, if anything. */
  notes: string[];
}

/** Path values: mostly real ids, sometimes anything; `raw:` ones are sent without encoding. */
function pathValue(name: string): fc.Arbitrary<string> {
  const real = pathIds[name] ?? [];
  const odd = fc.constantFrom(
    ...NASTY_STRINGS.filter((text) => text !== '' && text.length < 2_000),
    'raw:%E0%A4%A',
    'raw:%00',
    'x'.repeat(1_500),
  );
  return real.length > 0
    ? fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...real) },
        { weight: 1, arbitrary: odd },
        { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
      )
    : fc.oneof(odd, fc.string({ minLength: 1, maxLength: 40 }));
}

function queryOf(operation: Operation, valid: boolean): fc.Arbitrary<[string, string][]> {
  const parameters = ((operation.spec.parameters ?? []) as any[]).filter((p) => p.in === 'query');
  const entries = parameters.map((parameter) => {
    const value = valid
      ? validValue(context, parameter.schema, parameter.name).map((v) => String(v))
      : fc.oneof(
          validValue(context, parameter.schema, parameter.name).map((v) => String(v)),
          fc.constantFrom(...NASTY_QUERY_VALUES),
        );
    const present = parameter.required && valid ? fc.constant(true) : fc.boolean();
    return fc
      .tuple(present, value, fc.nat(9))
      .map(([isPresent, text, repeat]): [string, string][] =>
        !isPresent
          ? []
          : repeat === 0 && !valid
            ? [
                [parameter.name, text],
                [parameter.name, text],
              ]
            : [[parameter.name, text]],
      );
  });
  const none: fc.Arbitrary<[string, string][]> = fc.constant([]);
  const extra: fc.Arbitrary<[string, string][]> = valid
    ? none
    : fc.oneof(
        none,
        fc
          .tuple(
            fc.constantFrom('unknown', 'limit[gt]', 'x\u0000', '__proto__'),
            fc.constantFrom(...NASTY_QUERY_VALUES),
          )
          .map(([name, value]): [string, string][] => [[name, value]]),
      );
  return fc.tuple(fc.tuple(...entries), extra).map(([lists, more]) => [...lists.flat(), ...more]);
}

type GeneratedBody = (NonNullable<Case['body']> & { note?: string }) | undefined;

function bodyOf(operation: Operation, valid: boolean): fc.Arbitrary<GeneratedBody> {
  const body = requestBodyOf(document, operation);
  if (!body) {
    // A body where none is documented is ignored or refused, never a 500.
    const none: fc.Arbitrary<GeneratedBody> = fc.constant(undefined);
    return operation.method === 'GET' || valid
      ? none
      : fc.oneof(none, fc.constant({ json: { unexpected: true }, note: 'undocumented body' }));
  }
  if (body.mediaType === 'application/x-www-form-urlencoded') {
    const form = validValue(context, body.schema).map((value) =>
      Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, v]) => [name, String(v)]),
      ),
    );
    if (valid) return form.map((fields) => ({ form: fields }));
    return fc.oneof(
      form.map((fields) => ({ form: { ...fields, client_id: 'a\u0000' }, note: 'NUL' })),
      form.map((fields) => ({ form: { ...fields, grant_type: 'password' }, note: 'grant' })),
      fc.constant({ json: { grant_type: 'client_credentials' }, note: 'JSON to a form endpoint' }),
      fc.constant({ form: {}, note: 'empty form' }),
    );
  }
  if (body.mediaType !== 'application/json' && body.schema.type === 'string') {
    return textBodyOf(operation, valid);
  }
  if (valid) return validValue(context, body.schema).map((json) => ({ json }));
  return invalidBody(context, body.schema).map(({ kind, json, raw }) => ({
    ...(raw ? { raw } : { json }),
    note: kind,
  }));
}

/**
 * A body of text in a media type of its own (NDJSON, CSV): valid, a documented
 * example or any text in one of the operation's media types; invalid, odd text
 * or JSON sent to it instead.
 */
function textBodyOf(operation: Operation, valid: boolean): fc.Arbitrary<GeneratedBody> {
  const content = operation.spec.requestBody.content as Record<
    string,
    { examples?: Record<string, { value: string }> }
  >;
  const mediaTypes = Object.keys(content);
  const examples = Object.values(content).flatMap((media) =>
    Object.values(media.examples ?? {}).map((example) => example.value),
  );
  const text = fc.oneof(
    fc.constantFrom(...examples),
    fc.string({ maxLength: 2_000 }),
    fc.constantFrom(...NASTY_STRINGS),
  );
  const inMediaType = fc
    .tuple(text, fc.constantFrom(...mediaTypes))
    .map(([body, contentType]): GeneratedBody => ({ raw: { body, contentType } }));
  if (valid) return inMediaType;
  return fc.oneof(
    inMediaType.map((body) => ({ ...body, note: 'odd text' })),
    fc.constant<GeneratedBody>({ json: { unexpected: true }, note: 'JSON to a text endpoint' }),
    fc.constant<GeneratedBody>({
      raw: { body: 'a,b\n"unclosed', contentType: 'text/plain' },
      note: 'another media type',
    }),
  );
}

function caseOf(operation: Operation): fc.Arbitrary<Case> {
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!);
  return fc.boolean().chain((valid) =>
    fc
      .record({
        credential: valid
          ? fc.constantFrom<Credential>('full', 'full', 'full', 'full', 'full', 'narrow key')
          : fc.constantFrom<Credential>('full', 'full', 'full', 'narrow key', 'none', 'garbage'),
        path: fc.record(Object.fromEntries(names.map((name) => [name, pathValue(name)]))),
        query: queryOf(operation, valid),
        body: bodyOf(operation, valid),
        idempotencyKey: fc.option(
          valid
            ? fc.constant(randomKey())
            : fc.constantFrom(randomKey(), 'x'.repeat(300), 'has space', 'caf\u00e9'),
          { nil: undefined, freq: 4 },
        ),
      })
      .map(({ body, ...rest }) => ({
        ...rest,
        ...(body ? { body } : {}),
        notes: [valid ? 'valid' : 'invalid', ...(body?.note ? [body.note] : [])],
      })),
  );
}

function randomKey(): string {
  return `fuzz-${randomBytes(8).toString('hex')}`;
}

function encodePathValue(value: string): string {
  if (value.startsWith('raw:')) return value.slice(4);
  return encodeURIComponent(value.toWellFormed());
}

const sent = new Map<string, number>();
const statuses = new Map<string, Map<number, number>>();
/** With FUZZ_REPORT: why requests generated as valid were refused (the schema allows more than the server). */
const refusedValid = new Map<string, string[]>();

/** Sends one case and checks the answer against the document; returns a description for failures. */
async function send(operation: Operation, request: Case): Promise<void> {
  let path = operation.path;
  for (const [name, value] of Object.entries(request.path)) {
    path = path.replace(`{${name}}`, encodePathValue(value));
  }
  const search = new URLSearchParams(
    request.query.map(([name, value]): [string, string] => [
      name.toWellFormed(),
      value.toWellFormed(),
    ]),
  );
  const url = `${stack.baseUrl}${path}${request.query.length > 0 ? `?${search}` : ''}`;
  const headers: Record<string, string> = { ...credentials[request.credential] };
  if (request.idempotencyKey && operation.method === 'POST') {
    headers['idempotency-key'] = request.idempotencyKey;
  }
  let body: string | undefined;
  if (request.body?.raw) {
    headers['content-type'] = request.body.raw.contentType;
    body = request.body.raw.body;
  } else if (request.body?.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.body.form).toString();
  } else if (request.body && 'json' in request.body) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.body.json);
  }
  const response = await fetch(url, {
    method: operation.method,
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(DEADLINE_MS),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  sent.set(label(operation), (sent.get(label(operation)) ?? 0) + 1);
  const answered = statuses.get(label(operation)) ?? new Map<number, number>();
  answered.set(response.status, (answered.get(response.status) ?? 0) + 1);
  statuses.set(label(operation), answered);
  if (process.env.FUZZ_REPORT && request.notes[0] === 'valid' && response.status === 400) {
    refusedValid.set(label(operation), [
      ...(refusedValid.get(label(operation)) ?? []),
      text.slice(0, 200),
    ]);
  }
  const where = [
    `${operation.method} ${url.slice(stack.baseUrl.length, 300)} [${request.notes.join(', ')}; ${request.credential}]`,
    ...(body === undefined ? [] : [`  body: ${JSON.stringify(body.slice(0, 400))}`]),
    `  → ${response.status}: ${text.slice(0, 300)}`,
  ].join('\n');
  expect(response.status, where).toBeLessThan(500);
  let parsed: unknown = text;
  if (contentType?.includes('json') && text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new Error(`${where}: the body is not the JSON it says it is`, { cause: error });
    }
  }
  try {
    contract.check(operation.method, url, response.status, contentType, parsed);
  } catch (error) {
    throw new Error(`${where}\n${(error as Error).message}`, { cause: error });
  }
}

/** Reads before writes, deletions last, so fixtures live as long as they can. */
function order(operation: Operation): number {
  return { GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 }[operation.method] ?? 1;
}

function seedOf(operation: Operation): number {
  let hash = SEED;
  for (const char of label(operation)) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

describe('fuzzing every operation of the OpenAPI document', () => {
  it(`answers ${RUNS} generated requests per operation without a 5xx, as documented`, async () => {
    const operations = operationsOf(document).sort((a, b) => order(a) - order(b));
    const failures: string[] = [];
    for (const operation of operations) {
      const result = await fc.check(
        fc.asyncProperty(caseOf(operation), (request) => send(operation, request)),
        { numRuns: RUNS, seed: seedOf(operation), endOnFailure: true },
      );
      if (result.failed) {
        failures.push(
          `${label(operation)} (seed ${seedOf(operation)}, path ${result.counterexamplePath}): ${(result.errorInstance as Error | undefined)?.message ?? String(result.errorInstance)}`,
        );
      }
    }
    if (process.env.FUZZ_REPORT) {
      for (const [operation, counts] of statuses) {
        const summary = [...counts]
          .sort(([a], [b]) => a - b)
          .map(([status, n]) => `${status}×${n}`);
        process.stdout.write(`${operation}: ${summary.join(' ')}\n`);
        for (const reason of new Set(refusedValid.get(operation) ?? [])) {
          process.stdout.write(`    valid but refused: ${reason}\n`);
        }
      }
    }
    expect(failures.join('\n\n')).toBe('');
    // Every operation the document lists was exercised, each as often as asked.
    expect(sent.size).toBe(operations.length);
    for (const operation of operations) {
      expect(sent.get(label(operation)), label(operation)).toBe(RUNS);
    }
  });
});

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(stack?.settings.redisUrl ?? 'redis://127.0.0.1:6379');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}
