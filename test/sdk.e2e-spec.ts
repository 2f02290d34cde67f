import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  Client,
  ConflictError,
  NotFoundError,
  PermissionError,
  ValidationError,
  type Session,
} from '@sas/sdk';
import { SasClient } from '@sas/sdk/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * The SDK against the real service: both credentials, every resource's main
 * calls, list iterators over many pages, typed errors with their request
 * ids, idempotency keys it adds itself, waiting over the WebSocket and by
 * polling, and the 1.x surface still working.
 */

let stack: Stack;
let http: TestClient;
let org: TestOrganization;

beforeAll(async () => {
  // Webhook endpoints on this machine are allowed (the one created here is never delivered to).
  stack = await startStack({ env: { WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  http = await TestClient.for(stack);
  org = await createOrganization(stack, http);
});
afterAll(async () => {
  await stack?.close();
});

const withKey = async () => new Client({ baseUrl: stack.baseUrl, apiKey: await org.apiKey() });
const withClient = () =>
  new Client({ baseUrl: stack.baseUrl, clientId: org.clientId, clientSecret: org.clientSecret });

describe('the SDK', () => {
  it('creates a session, follows it live to the end, and reads its results (API key)', async () => {
    const client = await withKey();
    const created = await client.sessions.create({
      type: 'remote_viewing',
      target: 'SDK envelope 1',
      modality: 'visual',
    });
    expect(created.session_id).toMatch(/^sess_/);
    const progress: number[] = [];
    const done = (await client.waitFor(created, {
      onProgress: (p) => progress.push(p),
    })) as Session;
    expect(done.status).toBe('completed');
    expect(done.results?.confidence_score).toBeGreaterThanOrEqual(0);
    expect(progress.at(-1)).toBe(100);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    const results = await client.sessions.results(created.session_id);
    expect(results.results?.descriptors.length).toBeGreaterThan(0);
  });

  it('waits by polling where it may not use a WebSocket, and for dowsing queries always', async () => {
    const client = withClient();
    const created = await client.sessions.create({ type: 'dowsing', target: 'SDK well' });
    const done = await client.waitFor(created.session_id, { live: false, pollIntervalMs: 50 });
    expect(done.status).toBe('completed');
    const query = await client.dowsing.create({ query_type: 'yes_no', question: 'Water here?' });
    const answered = await client.dowsing.get(query.query_id);
    expect(answered.status).toBe('completed');
    expect((await client.waitFor({ query_id: query.query_id })).status).toBe('completed');
  });

  it('iterates over every page of a list, v2 cursors and v1 offsets alike', async () => {
    const own = await createOrganization(stack, http);
    const client = new Client({ baseUrl: stack.baseUrl, apiKey: await own.apiKey() });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(
        (await client.sessions.create({ type: 'remote_viewing', target: `list ${i}` })).session_id,
      );
    }
    const listed: string[] = [];
    let pages = 0;
    for await (const page of client.sessions.list({ per_page: 2 }).pages()) {
      pages += 1;
      listed.push(...page.data.map((s) => s.session_id));
    }
    expect(pages).toBe(3);
    expect(listed.sort()).toEqual([...ids].sort());
    expect(await client.sessions.list({ per_page: 2 }).toArray(3)).toHaveLength(3);
    // v1 offsets: the organisation's keys, over pages of the SDK's making.
    const keys = await client.apiKeys.list().toArray();
    expect(keys.length).toBeGreaterThanOrEqual(1);
  });

  it('types errors with code, details, request id and help URL', async () => {
    const client = await withKey();
    const missing = await client.sessions
      .get('sess_01jh2x7v4ke8rbk3a8y0v0d7qz')
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((missing as NotFoundError).requestId).toMatch(/^req_/);
    expect((missing as NotFoundError).helpUrl).toContain('/docs/errors');

    const invalid = await client.sessions
      .create({ type: 'remote_viewing', target: '' })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).details.field).toBe('target');

    // An API key cannot mint API keys: the endpoint needs an access token.
    const refused = await client.apiKeys
      .create({ name: 'from a key', scopes: ['remote-viewing:read'] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PermissionError);
    // …which a per-request credential gives.
    const created = await client.apiKeys.create(
      { name: 'from a token', scopes: ['remote-viewing:read'] },
      { auth: { clientId: org.clientId, clientSecret: org.clientSecret } },
    );
    expect(created.key).toMatch(/^sk_/);
  });

  it('sends an Idempotency-Key with every POST: one given is replayed, reused with another body refused', async () => {
    const client = withClient();
    const body = { type: 'remote_viewing' as const, target: 'SDK idempotent' };
    const first = await client.sessions.create(body, { idempotencyKey: 'sdk-key-1' });
    const again = await client.sessions.create(body, { idempotencyKey: 'sdk-key-1' });
    expect(again.session_id).toBe(first.session_id);
    const other = await client.sessions
      .create({ ...body, target: 'something else' }, { idempotencyKey: 'sdk-key-1' })
      .catch((error: unknown) => error);
    expect(other).toBeInstanceOf(ConflictError);
    // Without one given, each call is its own (the SDK's keys differ).
    const a = await client.sessions.create(body);
    const b = await client.sessions.create(body);
    expect(a.session_id).not.toBe(b.session_id);
  });

  it('reaches analyses, history and webhooks', async () => {
    const client = withClient();
    const analysis = await client.analyses.create({
      target_type: 'object',
      analysis_type: 'quick_scan',
      description: 'SDK analysis',
    });
    const done = await client.waitFor(analysis);
    expect(done.status).toBe('completed');
    expect((await client.analyses.results(analysis.analysis_id)).status).toBe('completed');
    const cases = await client.history.search({ q: 'SDK analysis' }).toArray(5);
    expect(cases.length).toBeGreaterThanOrEqual(1);
    const endpoint = await client.webhooks.create({
      url: 'https://127.0.0.1:9/hook',
      events: ['session.completed'],
    });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const listed = await client.webhooks.list().toArray();
    expect(listed.map((w) => w.webhook_id)).toContain(endpoint.webhook_id);
    await client.webhooks.delete(endpoint.webhook_id);
  });

  it('keeps the 1.x surface working while code migrates', async () => {
    const legacy = new SasClient({ baseUrl: stack.baseUrl, apiKey: await org.apiKey() });
    const created = await legacy.sessions.create({ type: 'remote_viewing', target: 'SDK 1.x' });
    expect(created.session_id).toMatch(/^sess_/);
    const status = await legacy.sessions.retrieve(created.session_id);
    expect(status.session_id).toBe(created.session_id);
    const page = await legacy.sessions.list({ limit: 1 });
    expect(page.results).toHaveLength(1);
  });

  it('ships no Node-only import in what browsers load', async () => {
    const dist = new URL('../packages/sdk/dist/', import.meta.url);
    const files = (await readdir(dist, { recursive: true })).filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = await readFile(join(dist.pathname, file), 'utf8');
      expect(text, file).not.toMatch(/from ['"](node:|fs|http|https|crypto|path|os)['"]/);
      expect(text, file).not.toMatch(/\brequire\(/);
    }
  });
});
