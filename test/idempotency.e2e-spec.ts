import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OAuthClientsService } from '#auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

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
afterAll(() => stack?.close());

const SESSION = { type: 'dowsing', target: 'Idempotent well' };

async function sessionCount(): Promise<number> {
  const [{ count }] = await stack.api
    .get(DataSource)
    .query('SELECT count(*)::int AS count FROM sessions WHERE organization_id = $1', [
      org.organizationId,
    ]);
  return count;
}

describe('Idempotency-Key', () => {
  it('replays the first response to a retry without creating again', async () => {
    const key = randomUUID();
    const before = await sessionCount();
    const first = await client.post('/v1/sessions', {
      token,
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    const retry = await client.post('/v1/sessions', {
      token,
      // The same body with its keys in another order is the same request.
      json: { target: SESSION.target, type: SESSION.type },
      headers: { 'Idempotency-Key': key },
    });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('original-request')).toBe(first.headers.get('x-request-id'));
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await sessionCount()).toBe(before + 1);
  });

  it('refuses the key with another body, or on another route, with 409 naming it', async () => {
    const key = randomUUID();
    await client.post('/v1/sessions', {
      token,
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    const otherBody = await client.post('/v1/sessions', {
      token,
      json: { ...SESSION, target: 'Another well' },
      headers: { 'Idempotency-Key': key },
    });
    expect(otherBody.status).toBe(409);
    expect(otherBody.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { field: 'Idempotency-Key' },
    });
    const otherRoute = await client.post('/v2/sessions/create', {
      token,
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    expect(otherRoute.status).toBe(409);
  });

  it('lets exactly one of concurrent duplicates run; the others replay its response', async () => {
    const key = randomUUID();
    const before = await sessionCount();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        client.post('/v1/sessions', { token, json: SESSION, headers: { 'Idempotency-Key': key } }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.body.session_id)).size).toBe(1);
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'false')).toHaveLength(
      1,
    );
    expect(await sessionCount()).toBe(before + 1);
  });

  it('keeps nothing of a failed request, so the same key can be retried', async () => {
    const key = randomUUID();
    const invalid = await client.post('/v1/sessions', {
      token,
      json: { type: 'tarot', target: 'x' },
      headers: { 'Idempotency-Key': key },
    });
    expect(invalid.status).toBe(400);
    const fixed = await client.post('/v1/sessions', {
      token,
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBe('false');
  });

  it('keeps keys apart per organisation and mode, and for 24 hours only', async () => {
    const key = randomUUID();
    const mine = await client.post('/v1/sessions', {
      token,
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    const other = await createOrganization(stack, client);
    const theirs = await client.post('/v1/sessions', {
      token: await other.token(),
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    expect(theirs.headers.get('idempotent-replayed')).toBe('false');
    expect(theirs.body.session_id).not.toBe(mine.body.session_id);
    const sandbox = await client.post('/v1/sessions', {
      apiKey: await org.apiKey(undefined, 'test'),
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    expect(sandbox.headers.get('idempotent-replayed')).toBe('false');

    // A day later the key is free again.
    await stack.api
      .get(DataSource)
      .query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`,
        [key],
      );
    const later = await client.post('/v1/sessions', {
      token,
      json: { ...SESSION, target: 'A new request' },
      headers: { 'Idempotency-Key': key },
    });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('false');
  });

  it('replays only to the credential that made the first request', async () => {
    const key = randomUUID();
    const first = await client.post('/v1/sessions', {
      token,
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    expect(first.status).toBe(201);
    // The same client with a fresh token is the same caller.
    const sameCaller = await client.post('/v1/sessions', {
      token: await org.token(),
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    expect(sameCaller.body.session_id).toBe(first.body.session_id);
    const otherCaller = await client.post('/v1/sessions', {
      apiKey: await org.apiKey(),
      json: SESSION,
      headers: { 'Idempotency-Key': key },
    });
    expect(otherCaller.status).toBe(409);
    expect(otherCaller.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { field: 'Idempotency-Key' },
    });
    expect(otherCaller.text).not.toContain(first.body.session_id);
  });

  it('keeps a response with a one-time secret sealed, and gives it to nobody else', async () => {
    const key = randomUUID();
    const body = { name: 'deploy key', scopes: ['remote-viewing:read'] };
    const created = await client.post('/v1/api-keys', {
      token,
      json: body,
      headers: { 'Idempotency-Key': key },
    });
    expect(created.status).toBe(201);
    const secret: string = created.body.key;
    const [stored] = await stack.api
      .get(DataSource)
      .query(
        `SELECT t::text AS row FROM idempotency_keys t WHERE organization_id = $1 AND key = $2`,
        [org.organizationId, key],
      );
    expect(stored.row).not.toContain(secret);
    expect(stored.row).not.toContain(secret.slice(-12));
    expect(stored.row).toContain('enc:v1:');

    const retry = await client.post('/v1/api-keys', {
      token,
      json: body,
      headers: { 'Idempotency-Key': key },
    });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.key).toBe(secret);
    // Another client of the same organisation, sending the same key and body, gets nothing.
    const { client: second, clientSecret } = await stack.api
      .get(OAuthClientsService)
      .createConfidential({
        organizationId: org.organizationId,
        mode: 'live',
        clientName: 'another integration',
        scopes: ['organizations:write', 'remote-viewing:read'],
      });
    const secondToken = await client.post('/oauth2/token', {
      form: {
        grant_type: 'client_credentials',
        client_id: second.clientId,
        client_secret: clientSecret,
      },
    });
    const narrow = await client.post('/v1/api-keys', {
      token: secondToken.body.access_token,
      json: body,
      headers: { 'Idempotency-Key': key },
    });
    expect(narrow.status).toBe(409);
    expect(narrow.body.error.details.field).toBe('Idempotency-Key');
    expect(narrow.text).not.toContain(secret);
    const otherToken = await client.post('/v1/api-keys', {
      token: await (await createOrganization(stack, client)).token(),
      json: body,
      headers: { 'Idempotency-Key': key },
    });
    expect(otherToken.headers.get('idempotent-replayed')).toBe('false');
    expect(otherToken.body.key).not.toBe(secret);
  });

  it.each(['', 'has space', 'x'.repeat(256), 'ünïcode'])(
    'refuses the malformed key %j naming the header',
    async (key) => {
      const refused = await client.post('/v1/sessions', {
        token,
        json: SESSION,
        headers: { 'Idempotency-Key': key },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.field).toBe('Idempotency-Key');
    },
  );

  it('is documented on every authenticated POST but those that stream their body', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/docs-json`)).json()) as {
      paths: Record<string, { post?: { security?: unknown[]; parameters?: { name: string }[] } }>;
    };
    const posts = Object.entries(document.paths).filter(([, item]) => item.post?.security?.length);
    expect(posts.length).toBeGreaterThan(15);
    // A streamed body cannot be hashed before the route reads it: the key is ignored there
    // (test/history-import.e2e-spec.ts), so it is not offered.
    const streamed = ['/v2/history/import'];
    for (const [path, item] of posts) {
      expect(item.post!.parameters?.some((p) => p.name === 'Idempotency-Key') ?? false, path).toBe(
        !streamed.includes(path),
      );
    }
  });
});
