import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
});
afterAll(() => stack?.close());

describe('batches of sessions (v1)', () => {
  it('creates every session of a batch, reports its progress, then every result in order', async () => {
    const created = await client.post('/v1/batch/sessions', {
      token,
      json: {
        sessions: [
          { type: 'remote_viewing', target: 'Batch item one' },
          { session_type: 'dowsing', cue: 'Batch item two' },
          { type: 'automatic_writing', target: 'Batch item three [fail]' },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      batch_id: expect.stringMatching(/^batch_[0-9a-z]{26}$/),
      kind: 'sessions',
      status: 'processing',
      total: 3,
      counts: { initiated: 3, in_progress: 0, completed: 0, failed: 0 },
    });
    const ids = created.body.sessions.map((s: { session_id: string }) => s.session_id);
    expect(ids).toHaveLength(3);
    const batchId = created.body.batch_id as string;

    const done = await waitFor(async () => {
      const status = await client.get(`/v1/batch/${batchId}/status`, { token });
      return status.body.status === 'processing' ? null : status.body;
    });
    expect(done).toMatchObject({
      status: 'completed_with_failures',
      counts: { initiated: 0, in_progress: 0, completed: 2, failed: 1 },
    });

    const results = await client.get(`/v1/batch/${batchId}/results`, { token });
    expect(results.status).toBe(200);
    expect(results.body.results.map((r: { session_id: string }) => r.session_id)).toEqual(ids);
    expect(results.body.results[0]).toMatchObject({
      status: 'completed',
      results: expect.any(Object),
    });
    expect(results.body.results[2]).toMatchObject({ status: 'failed' });

    // Each item is an ordinary session too.
    const single = await client.get(`/v1/sessions/${ids[1]}`, { token });
    expect(single.body).toMatchObject({ type: 'dowsing', status: 'completed' });
  });

  it('creates none when one item is bad, naming it', async () => {
    const before = (await client.get('/v1/sessions', { token })).body.total as number;
    const refused = await client.post('/v1/batch/sessions', {
      token,
      json: {
        sessions: [
          { type: 'remote_viewing', target: 'fine' },
          { type: 'remote_viewing', target: 'also fine' },
          { type: 'remote_viewing' },
        ],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe('sessions.2.target');
    const invalidType = await client.post('/v1/batch/sessions', {
      token,
      json: { sessions: [{ type: 'tarot', target: 'x' }] },
    });
    expect(invalidType.body.error.details.field).toBe('sessions.0.type');
    expect((await client.get('/v1/sessions', { token })).body.total).toBe(before);
  });

  it.each([
    [{ sessions: [] }, 'sessions', /at least one/],
    [{ sessions: 'many' }, 'sessions', /array/],
    [
      { sessions: Array.from({ length: 101 }, () => ({ type: 'dowsing', target: 'x' })) },
      'sessions',
      /at most 100/,
    ],
  ])('refuses %j', async (json, field, issue) => {
    const refused = await client.post('/v1/batch/sessions', { token, json });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe(field);
    expect(refused.body.error.details.issue).toMatch(issue);
  });

  it("answers 404 for another organisation's batch and for malformed ids", async () => {
    const created = await client.post('/v1/batch/sessions', {
      token,
      json: { sessions: [{ type: 'remote_viewing', target: 'private batch' }] },
    });
    const other = await createOrganization(stack, client);
    const foreign = await client.get(`/v1/batch/${created.body.batch_id}/status`, {
      token: await other.token(),
    });
    expect(foreign.status).toBe(404);
    expect((await client.get('/v1/batch/batch_nope/results', { token })).status).toBe(404);
  });
});
