import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('version 2 sessions', () => {
  it('creates with POST /v2/sessions/create and reads the later-generation result shape', async () => {
    const created = await client.post('/v2/sessions/create', {
      token,
      json: { type: 'remote_viewing', target: 'Lighthouse', privacy_level: 'public' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 'remote_viewing',
      target: 'Lighthouse',
      status: 'initiated',
      privacy_level: 'public',
      duration_minutes: 30,
      progress: 0,
      results_available: false,
    });
    const done = await waitFor(async () => {
      const read = await client.get(`/v2/sessions/${created.body.session_id}`, { token });
      return read.body.status === 'completed' ? read.body : null;
    });
    const { statistical_validation, collaborative_insights } = done.results;
    expect(statistical_validation.p_value).toBeGreaterThan(0);
    expect(statistical_validation.p_value).toBeLessThanOrEqual(1);
    expect(statistical_validation.confidence_interval).toHaveLength(2);
    expect(statistical_validation.sample_size).toBeGreaterThan(0);
    expect(collaborative_insights.length).toBeGreaterThan(0);
    expect(done.metadata).toMatchObject({ engine: 'simulated', evidence: 'prior' });
    expect(done.target).toBe('Lighthouse');
  });

  it.each(['/v2/sessions/create', '/v2/sessions/collaborative', '/v2/mobile/sessions/create'])(
    'accepts the quick-start body (cue, session_type) at %s',
    async (path) => {
      const created = await client.post(path, {
        token,
        json: { cue: 'Where is the lost hiking boot?', session_type: 'remote_viewing' },
      });
      expect(created.status).toBe(201);
      const read = await client.get(`/v2/sessions/${created.body.session_id}`, { token });
      expect(read.body).toMatchObject({
        type: 'remote_viewing',
        target: 'Where is the lost hiking boot?',
        duration_minutes: 30,
        privacy_level: 'private',
      });
    },
  );

  it.each([
    ['target and cue', { type: 'remote_viewing', target: 'a', cue: 'b' }, 'cue'],
    [
      'type and another session_type',
      { type: 'remote_viewing', session_type: 'dowsing', cue: 'b' },
      'session_type',
    ],
    ['a blank cue', { session_type: 'remote_viewing', cue: '   ' }, 'target'],
  ])('refuses %s in one body, naming the field', async (_name, body, field) => {
    const refused = await client.post('/v2/sessions/create', { token, json: body });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('never shows a classified session’s target: null in the create answer, its read and the list', async () => {
    const own = await (await createOrganization(stack, client)).token();
    const created = await client.post('/v2/sessions/create', {
      token: own,
      json: { type: 'dowsing', target: 'Codeword granite plover', privacy_level: 'classified' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ privacy_level: 'classified', target: null });
    const read = await client.get(`/v2/sessions/${created.body.session_id}`, { token: own });
    expect(read.body).toMatchObject({ session_id: created.body.session_id, target: null });
    const listed = await client.get('/v2/sessions', { token: own });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ session_id: created.body.session_id, target: null }),
    ]);
    expect(JSON.stringify([created.body, read.body, listed.body])).not.toContain('granite');
  });
});

describe('GET /v2/sessions', () => {
  interface Listed {
    session_id: string;
    status: string;
    confidence_score?: number | null;
    results?: { confidence_score: number } | null;
  }
  const idsOf = (body: { data: Listed[] }) => body.data.map((session) => session.session_id);

  it('filters by status, confidence_score comparisons, created_after and analyst_id, in keyset pages', async () => {
    const org = await createOrganization(stack, client);
    const own = await org.token();
    const ids: string[] = [];
    for (const target of ['alpha ridge', 'beta lake', 'gamma tower', 'delta bridge']) {
      const created = await client.post('/v2/sessions/create', {
        token: own,
        json: { type: 'remote_viewing', target },
      });
      ids.push(created.body.session_id);
    }
    const scores = new Map<string, number>();
    for (const id of ids) {
      const done = await waitFor(async () => {
        const read = await client.get(`/v2/sessions/${id}`, { token: own });
        return read.body.status === 'completed' ? read.body : null;
      });
      scores.set(id, done.results.confidence_score as number);
    }
    const running = await client.post('/v2/sessions/create', {
      token: own,
      json: { type: 'remote_viewing', target: 'still running [slow]' },
    });

    // Right away, while the [slow] one still runs.
    const completed = await client.get('/v2/sessions?status=completed&per_page=100', {
      token: own,
    });
    expect(idsOf(completed.body).sort()).toEqual([...ids].sort());

    const all = await client.get('/v2/sessions?per_page=2', { token: own });
    expect(all.status).toBe(200);
    expect(all.body.pagination).toMatchObject({ page: 1, per_page: 2, total: 5, has_next: true });
    const second = await client.get(
      `/v2/sessions?per_page=2&cursor=${all.body.pagination.next_cursor}`,
      {
        token: own,
      },
    );
    expect(second.body.pagination).toMatchObject({ page: 2, has_prev: true });
    const third = await client.get(
      `/v2/sessions?per_page=2&cursor=${second.body.pagination.next_cursor}`,
      {
        token: own,
      },
    );
    expect([...idsOf(all.body), ...idsOf(second.body), ...idsOf(third.body)]).toEqual([
      running.body.session_id,
      ...[...ids].reverse(),
    ]);
    expect(all.body.data.map((session: { target: string }) => session.target)).toEqual([
      'still running [slow]',
      'delta bridge',
    ]);
    expect(third.body.pagination).toMatchObject({ has_next: false, next_cursor: null });

    const sorted = [...scores.values()].sort((a, b) => a - b);
    const low = sorted[0]!;
    const high = sorted.at(-1)!;
    const above = await client.get(`/v2/sessions?confidence_score[gt]=${low}&per_page=100`, {
      token: own,
    });
    expect(idsOf(above.body).sort()).toEqual(ids.filter((id) => scores.get(id)! > low).sort());
    const range = await client.get(
      `/v2/sessions?confidence_score[gte]=${low}&confidence_score[lt]=${high}&per_page=100`,
      { token: own },
    );
    expect(idsOf(range.body).sort()).toEqual(
      ids.filter((id) => scores.get(id)! >= low && scores.get(id)! < high).sort(),
    );

    const future = await client.get('/v2/sessions?created_after=2999-01-01', { token: own });
    expect(future.body.data).toEqual([]);
    const past = await client.get('/v2/sessions?created_after=2000-01-01&per_page=100', {
      token: own,
    });
    expect(past.body.pagination.total).toBe(5);

    const [{ analyst_id: analystId }] = await stack.api
      .get(DataSource)
      .query(
        `SELECT analyst_id FROM sessions WHERE analyst_id IS NOT NULL AND organization_id = $1 LIMIT 1`,
        [org.organizationId],
      );
    const byAnalyst = await client.get(`/v2/sessions?analyst_id=${analystId}&per_page=100`, {
      token: own,
    });
    expect(byAnalyst.body.data.length).toBeGreaterThan(0);
    const none = await client.get('/v2/sessions?analyst_id=analyst_nobody', { token: own });
    expect(none.body.data).toEqual([]);
  });

  it('counts exactly up to 1,000 and estimates beyond; pages carry their number in the cursor', async () => {
    const org = await createOrganization(stack, client);
    const own = await org.token();
    // 1,100 finished sessions, oldest first, written directly: the API would take minutes.
    await stack.api.get(DataSource).query(
      `INSERT INTO sessions (id, organization_id, mode, type, target, duration_minutes, privacy_level,
                             status, engine, failure_reason, event_sequence, created_at, updated_at)
       SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7'
                 || substr(md5(i::text), 1, 3) || '8' || substr(md5(i::text), 4, 15))::uuid,
              $1, 'live', 'dowsing', 'Bulk ' || i, 30, 'private', 'failed', 'simulated',
              'engine_failure', 1, t, t
         FROM generate_series(1, 1100) AS i, LATERAL (SELECT now() - (1101 - i) * interval '1 second' AS t) AS at`,
      [org.organizationId],
    );
    await stack.api.get(DataSource).query('ANALYZE sessions');
    const first = await client.get('/v2/sessions?per_page=100', { token: own });
    expect(first.body.pagination).toMatchObject({
      page: 1,
      per_page: 100,
      total_estimated: true,
      has_next: true,
      has_prev: false,
    });
    expect(first.body.pagination.total).toBeGreaterThan(1000);
    const second = await client.get(
      `/v2/sessions?per_page=100&cursor=${first.body.pagination.next_cursor}`,
      { token: own },
    );
    expect(second.body.pagination).toMatchObject({ page: 2, has_prev: true });
    expect(idsOf(second.body)).not.toContain(idsOf(first.body)[99]);
    // A narrower filter is counted exactly.
    const exact = await client.get('/v2/sessions?status=completed', { token: own });
    expect(exact.body.pagination).toMatchObject({ total: 0, total_estimated: false });
    // A cursor whose count was tampered with is refused.
    const [id] = Buffer.from(first.body.pagination.next_cursor, 'base64url').toString().split('.');
    const tampered = Buffer.from(`${id}.x`).toString('base64url');
    const refused = await client.get(`/v2/sessions?cursor=${tampered}`, { token: own });
    expect(refused.body.error.details.field).toBe('cursor');
  });

  it.each([
    ['confidence_score[above]=0.5', 'confidence_score[above]'],
    ['confidence_score[gt]=high', 'confidence_score[gt]'],
    ['confidence_score[lt]=2', 'confidence_score[lt]'],
    ['created_after=yesterday', 'created_after'],
    ['status=done', 'status'],
    ['per_page=500', 'per_page'],
    ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
  ])('refuses %s with VALIDATION_ERROR naming %s', async (query, field) => {
    const refused = await client.get(`/v2/sessions?${query}`, { token });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });
});

describe('POST /v2/mobile/sessions/create and POST /v2/sessions/{id}/results', () => {
  it('creates the same session with a compact answer', async () => {
    const created = await client.post('/v2/mobile/sessions/create', {
      token,
      json: { type: 'dowsing', target: 'Well site', duration_minutes: 15 },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      ['created_at', 'estimated_completion', 'session_id', 'status'].sort(),
    );
    const read = await client.get(`/v2/sessions/${created.body.session_id}`, { token });
    expect(read.body).toMatchObject({ type: 'dowsing', duration_minutes: 15 });
    const refused = await client.post('/v2/mobile/sessions/create', {
      token,
      json: { type: 'tarot', target: 'x' },
    });
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'type' },
    });
  });

  it("refuses submissions for the simulated engine's sessions with 409 naming the engine", async () => {
    const created = await client.post('/v2/sessions/create', {
      token,
      json: { type: 'remote_viewing', target: 'Submission check' },
    });
    const id = created.body.session_id;
    const submitted = await client.post(`/v2/sessions/${id}/results`, {
      token,
      json: { descriptors: ['water'] },
    });
    expect(submitted.status).toBe(409);
    expect(submitted.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'engine' } });
    const other = await createOrganization(stack, client);
    const foreign = await client.post(`/v2/sessions/${id}/results`, {
      token: await other.token(),
      json: { descriptors: ['water'] },
    });
    expect(foreign.status).toBe(404);
  });
});

describe('session templates', () => {
  it('lists the built-in templates with the organisation’s own, and creates sessions from them', async () => {
    const org = await createOrganization(stack, client);
    const own = await org.token();
    const listed = await client.get('/v2/sessions/templates', { token: own });
    expect(listed.status).toBe(200);
    const builtIns = listed.body.data as { template_id: string; name: string; built_in: boolean }[];
    expect(builtIns.length).toBeGreaterThanOrEqual(4);
    expect(builtIns.every((template) => template.built_in)).toBe(true);

    const created = await client.post('/v2/sessions/templates', {
      token: own,
      json: {
        name: 'Night shift',
        type: 'dowsing',
        modality: 'kinesthetic',
        duration_minutes: 45,
        privacy_level: 'public',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      template_id: expect.stringMatching(/^tpl_/),
      name: 'Night shift',
      built_in: false,
      duration_minutes: 45,
    });
    const duplicate = await client.post('/v2/sessions/templates', {
      token: own,
      json: { name: 'Night shift', type: 'dowsing' },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.details.field).toBe('name');

    const fromTemplate = await client.post('/v2/sessions/create', {
      token: own,
      json: { template_id: created.body.template_id, target: 'Templated', duration_minutes: 20 },
    });
    expect(fromTemplate.status).toBe(201);
    expect(fromTemplate.body).toMatchObject({
      type: 'dowsing',
      modality: 'kinesthetic',
      duration_minutes: 20,
      privacy_level: 'public',
    });
    const fromBuiltIn = await client.post('/v2/sessions/create', {
      token: own,
      json: { template_id: builtIns[0]!.template_id, target: 'Built-in' },
    });
    expect(fromBuiltIn.status).toBe(201);

    const other = await createOrganization(stack, client);
    const otherToken = await other.token();
    expect(
      (
        await client.get(`/v2/sessions/templates/${created.body.template_id}`, {
          token: otherToken,
        })
      ).status,
    ).toBe(404);
    const foreign = await client.post('/v2/sessions/create', {
      token: otherToken,
      json: { template_id: created.body.template_id, target: 'x' },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'template_id' },
    });

    const builtInDelete = await client.delete(
      `/v2/sessions/templates/${builtIns[0]!.template_id}`,
      {
        token: own,
      },
    );
    expect(builtInDelete.status).toBe(409);
    const deleted = await client.delete(`/v2/sessions/templates/${created.body.template_id}`, {
      token: own,
    });
    expect(deleted.status).toBe(204);
    expect(
      (await client.get(`/v2/sessions/templates/${created.body.template_id}`, { token: own }))
        .status,
    ).toBe(404);
  });

  it.each([
    ['/v2/sessions/create', { target: 'no type' }],
    ['/v2/sessions/create', { cue: 'no type' }],
    ['/v2/sessions/collaborative', { target: 'no type' }],
    ['/v2/mobile/sessions/create', { target: 'no type' }],
  ])('still requires a type at %s when no template is named: %o', async (path, body) => {
    const refused = await client.post(path, { token, json: body });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'type', issue: 'is required' },
    });
  });

  it('requires a target in either spelling', async () => {
    const refused = await client.post('/v2/sessions/create', {
      token,
      json: { type: 'remote_viewing' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'target', issue: 'is required' },
    });
  });
});
