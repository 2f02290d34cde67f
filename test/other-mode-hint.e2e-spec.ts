import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtherModeRepository, Sql } from '#database';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * A 404 for an id the caller's organisation holds in its other mode says so
 * (issue 43), as Stripe's does: a test key reading the tour's live session
 * learns why it is not found. Another organisation's ids stay a plain 404.
 */

let stack: Stack;
let client: TestClient;
let owner: TestOrganization;
let liveKey: string;
let testKey: string;

beforeAll(async () => {
  stack = await startStack({ worker: false, env: { OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  client = await TestClient.for(stack);
  owner = await createOrganization(stack, client, 'live');
  liveKey = await owner.apiKey(undefined, 'live');
  testKey = await owner.apiKey(undefined, 'test');
});
afterAll(() => stack?.close());

async function created(apiKey: string, path: string, json: unknown, idField: string) {
  const response = await client.post(path, { apiKey, json });
  expect(response.status, response.text).toBe(201);
  return response.body[idField] as string;
}

describe('a 404 for an id of the other mode', () => {
  it('tells a test-mode key that the session exists in live mode, in v2 and v1', async () => {
    const id = await created(
      liveKey,
      '/v2/sessions/create',
      { type: 'dowsing', target: 'live' },
      'session_id',
    );
    const v2 = await client.get(`/v2/sessions/${id}`, { apiKey: testKey });
    expect(v2.status).toBe(404);
    expect(v2.body.error.code).toBe('NOT_FOUND');
    expect(v2.body.error.message).toBe(
      `No session with id ${id} in test mode: it exists in live mode, and this credential is test-mode`,
    );
    expect(v2.body.error.details).toMatchObject({
      field: 'id',
      issue: 'exists in live mode; this credential is test-mode',
    });
    const v1 = await client.get(`/v1/sessions/${id}`, { apiKey: testKey });
    expect(v1.status).toBe(404);
    expect(JSON.stringify(v1.body)).toContain('it exists in live mode');
  });

  it('tells a live key that a webhook exists in test mode', async () => {
    const id = await created(
      testKey,
      '/v2/webhooks',
      { url: 'https://127.0.0.1:9/hooks', events: ['session.completed'] },
      'webhook_id',
    );
    const response = await client.get(`/v2/webhooks/${id}`, { apiKey: liveKey });
    expect(response.status).toBe(404);
    expect(response.body.error.message).toContain(
      'it exists in test mode, and this credential is live-mode',
    );
  });

  it('tells a live key that an OAuth client exists in test mode, naming client_id', async () => {
    const clientId = await created(
      testKey,
      '/v1/oauth-clients',
      { client_name: 'sandbox', grant_types: ['client_credentials'], scope: 'remote-viewing:read' },
      'client_id',
    );
    const response = await client.get(`/v1/oauth-clients/${clientId}`, { apiKey: liveKey });
    expect(response.status).toBe(404);
    expect(response.body.error.details).toMatchObject({
      field: 'client_id',
      issue: 'exists in test mode; this credential is live-mode',
    });
  });

  it('says nothing more for an id that exists nowhere, or in another organisation', async () => {
    const other = await createOrganization(stack, client, 'live');
    const theirs = await created(
      await other.apiKey(undefined, 'live'),
      '/v2/sessions/create',
      { type: 'dowsing', target: 'theirs' },
      'session_id',
    );
    for (const apiKey of [testKey, liveKey]) {
      const response = await client.get(`/v2/sessions/${theirs}`, { apiKey });
      expect(response.status).toBe(404);
      expect(response.body.error.message).toBe(`No session with id ${theirs}`);
      expect(response.body.error.details.issue).toBe('not found');
    }
    const nowhere = 'sess_01m82sfbpbenftg57hv349pfkd';
    const response = await client.get(`/v2/sessions/${nowhere}`, { apiKey: testKey });
    expect(response.status).toBe(404);
    expect(response.body.error.message).toBe(`No session with id ${nowhere}`);
  });

  it('asks every table that holds rows of both modes', async () => {
    // Read off the database, not the entities: a mode-owned table with no entity would be missed.
    const tables = await stack.api.get(Sql).rows<{ table_name: string }>(
      `SELECT c.table_name FROM information_schema.columns c
        WHERE c.table_schema = 'public' AND c.column_name = 'id' AND c.data_type = 'uuid'
          AND EXISTS (SELECT 1 FROM information_schema.columns m WHERE m.table_schema = 'public'
                       AND m.table_name = c.table_name AND m.column_name = 'mode')
          AND EXISTS (SELECT 1 FROM information_schema.columns o WHERE o.table_schema = 'public'
                       AND o.table_name = c.table_name AND o.column_name = 'organization_id')
        ORDER BY 1`,
    );
    const asked = stack.api.get(OtherModeRepository).tables();
    expect(asked).toEqual(tables.map((row) => row.table_name));
    expect(asked).toEqual(
      expect.arrayContaining(['sessions', 'analyses', 'dowsing_queries', 'webhooks']),
    );
  });
});
