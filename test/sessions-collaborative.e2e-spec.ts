import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, toPublicId } from '#common';
import { SessionSweeper } from '#sessions';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
  token = await (await createOrganization(stack, client)).token();
});
afterAll(() => stack?.close());

async function completed(id: string, as = token) {
  return waitFor(async () => {
    const read = await client.get(`/v2/sessions/${id}`, { token: as });
    return read.body.status === 'completed' ? read.body : null;
  });
}

async function create(path: string, json: Record<string, unknown>, as = token) {
  const created = await client.post(path, { token: as, json });
  expect(created.status).toBe(201);
  return created.body.session_id as string;
}

describe('POST /v2/sessions/collaborative', () => {
  it('combines N simulated analysts on one target', async () => {
    const id = await create('/v2/sessions/collaborative', {
      type: 'remote_viewing',
      target: 'Bridge over the gorge',
      analyst_count: 4,
    });
    const done = await completed(id);
    expect(done.analyst_count).toBe(4);
    expect(done.merged_from).toBeNull();
    expect(
      done.results.collaborative_insights.map((c: { analyst_id: string }) => c.analyst_id),
    ).toEqual(['analyst_sim_1', 'analyst_sim_2', 'analyst_sim_3', 'analyst_sim_4']);
    const weights = done.results.collaborative_insights.map(
      (c: { contribution_weight: number }) => c.contribution_weight,
    );
    expect(weights.reduce((s: number, w: number) => s + w, 0)).toBeCloseTo(1, 2);
    expect(done.results.statistical_validation.sample_size).toBe(4 * 12);
  });

  it('defaults to three analysts and takes a template', async () => {
    const templates = await client.get('/v2/sessions/templates', { token });
    const id = await create('/v2/sessions/collaborative', {
      template_id: templates.body.data[0].template_id,
      target: 'Template target',
    });
    const read = await client.get(`/v2/sessions/${id}`, { token });
    expect(read.body.analyst_count).toBe(3);
  });

  it.each([1, 21, 2.5, 'three'])('refuses analyst_count %s naming it', async (analystCount) => {
    const refused = await client.post('/v2/sessions/collaborative', {
      token,
      json: { type: 'dowsing', target: 'x', analyst_count: analystCount },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'analyst_count' },
    });
  });
});

describe('POST /v2/sessions/{id}/merge', () => {
  it('merges completed sessions on one target into a new completed session', async () => {
    const target = 'Tower on the hill';
    const solo = await create('/v2/sessions/create', {
      type: 'remote_viewing',
      target,
      modality: 'visual',
      privacy_level: 'public',
    });
    const group = await create('/v2/sessions/collaborative', {
      type: 'remote_viewing',
      target,
      modality: 'auditory',
      duration_minutes: 60,
      privacy_level: 'classified',
      analyst_count: 2,
    });
    const [a, b] = await Promise.all([completed(solo), completed(group)]);
    const merged = await client.post(`/v2/sessions/${solo}/merge`, {
      token,
      json: { session_ids: [group] },
    });
    expect(merged.status).toBe(201);
    expect(merged.body).toMatchObject({
      status: 'completed',
      progress: 100,
      type: 'remote_viewing',
      analyst_count: 3,
      merged_from: [solo, group],
      privacy_level: 'classified',
      modality: null,
      duration_minutes: 60,
      metadata: { engine: 'simulated', evidence: 'prior' },
    });
    expect(merged.body.session_id).not.toBe(solo);
    const { results } = merged.body;
    expect(results.statistical_validation.sample_size).toBe(
      a.results.statistical_validation.sample_size + b.results.statistical_validation.sample_size,
    );
    // analyst_sim_1 worked on both sources: one entry for them.
    expect(results.collaborative_insights).toHaveLength(2);
    const read = await client.get(`/v2/sessions/${merged.body.session_id}`, { token });
    expect(read.body.results).toEqual(results);

    const again = await client.post(`/v2/sessions/${merged.body.session_id}/merge`, {
      token,
      json: { session_ids: [solo] },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ field: 'session_ids' });
    expect(again.body.error.details.issue).toMatch(/itself a merge/);
  });

  it('refuses sessions that are not completed or not on the same target, naming session_ids', async () => {
    const done = await create('/v2/sessions/create', { type: 'dowsing', target: 'Spring' });
    const elsewhere = await create('/v2/sessions/create', { type: 'dowsing', target: 'Cave' });
    const otherType = await create('/v2/sessions/create', {
      type: 'automatic_writing',
      target: 'Spring',
    });
    await Promise.all([completed(done), completed(elsewhere), completed(otherType)]);
    const running = await create('/v2/sessions/create', {
      type: 'dowsing',
      target: 'Spring [slow]',
    });
    for (const [other, issue] of [
      [elsewhere, /target differs/],
      [otherType, /type automatic_writing is not dowsing/],
      [running, /not completed/],
    ] as const) {
      const refused = await client.post(`/v2/sessions/${done}/merge`, {
        token,
        json: { session_ids: [other] },
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({
        code: 'CONFLICT',
        details: { field: 'session_ids' },
      });
      expect(refused.body.error.details.issue).toContain(other);
      expect(refused.body.error.details.issue).toMatch(issue);
    }
  });

  it('answers 404 for an id of another organisation and 400 for a bad list', async () => {
    const mine = await create('/v2/sessions/create', { type: 'dowsing', target: 'Ridge' });
    const other = await createOrganization(stack, client);
    const theirs = await create(
      '/v2/sessions/create',
      { type: 'dowsing', target: 'Ridge' },
      await other.token(),
    );
    const foreign = await client.post(`/v2/sessions/${mine}/merge`, {
      token,
      json: { session_ids: [theirs] },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toContain(theirs);
    const foreignPath = await client.post(`/v2/sessions/${theirs}/merge`, {
      token,
      json: { session_ids: [mine] },
    });
    expect(foreignPath.status).toBe(404);
    for (const sessionIds of [[], [mine], 'x', [theirs, theirs], Array(20).fill(theirs)]) {
      const refused = await client.post(`/v2/sessions/${mine}/merge`, {
        token,
        json: { session_ids: sessionIds },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toMatchObject({ field: 'session_ids' });
    }
  });
});

describe('privacy levels', () => {
  it('shares public sessions read-only with other organisations, and nothing else', async () => {
    const shared = await create('/v2/sessions/create', {
      type: 'remote_viewing',
      target: 'Shared lighthouse',
      privacy_level: 'public',
    });
    const kept = await create('/v2/sessions/create', {
      type: 'remote_viewing',
      target: 'Kept lighthouse',
    });
    const done = await completed(shared);
    const outsider = await (await createOrganization(stack, client)).token();
    const read = await client.get(`/v2/public/sessions/${shared}`, { token: outsider });
    expect(read.status).toBe(200);
    // Shared without its people: no analyst ids, no analysts' insights (their notes' first lines).
    expect(done.metadata.analyst_id).not.toBeNull();
    expect(done.results.collaborative_insights.length).toBeGreaterThan(0);
    expect(read.body).toEqual({
      ...done,
      metadata: { ...done.metadata, analyst_id: null },
      results: { ...done.results, collaborative_insights: [] },
    });
    expect(JSON.stringify(read.body)).not.toContain(done.metadata.analyst_id);
    const sketch = await client.get(new URL(done.results.sketches[0].url).pathname, {
      token: outsider,
    });
    expect(sketch.status).toBe(200);
    expect((await client.get(`/v2/public/sessions/${kept}`, { token: outsider })).status).toBe(404);
    expect((await client.get(`/v2/sessions/${shared}`, { token: outsider })).status).toBe(404);
    const cancel = await client.post(`/v1/sessions/${shared}/cancel`, { token: outsider });
    expect(cancel.status).toBe(404);
  });

  it('keeps the target of a classified session out of its events', async () => {
    const secret = 'Vault 7 behind the north wall';
    const id = await create('/v2/sessions/create', {
      type: 'remote_viewing',
      target: secret,
      privacy_level: 'classified',
    });
    await completed(id);
    const events = await waitFor(async () => {
      const listed = await client.get('/v2/events?per_page=100', { token });
      const own = listed.body.data.filter(
        (e: { data: { session_id?: string } }) => e.data.session_id === id,
      );
      return own.some((e: { type: string }) => e.type === 'session.completed') ? own : null;
    });
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(JSON.stringify(events)).not.toContain('"target"');
  });
});

describe('sessions whose work was lost', () => {
  it('are enqueued again by the sweep and finish', async () => {
    const org = await createOrganization(stack, client);
    const uuid = newKey('session').uuid;
    // A session whose job vanished an hour ago (say, with Redis's data): no job, no event to relay.
    await stack.api.get(DataSource).query(
      `INSERT INTO sessions (id, organization_id, mode, type, target, duration_minutes, privacy_level,
                             status, engine, event_sequence, created_at, updated_at)
       VALUES ($1, $2, 'live', 'dowsing', 'Lost work', 30, 'private', 'initiated', 'simulated', 1,
               now() - interval '1 hour', now() - interval '1 hour')`,
      [uuid, org.organizationId],
    );
    const sweeper = stack.worker!.get(SessionSweeper);
    expect(await sweeper.runOnce()).toBeGreaterThanOrEqual(1);
    const done = await completed(toPublicId('session', uuid), await org.token());
    expect(done.progress).toBe(100);
  });
});
