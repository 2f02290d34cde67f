import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scope } from '#common';
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

async function createSession(body: Record<string, unknown>, credential = token) {
  return client.post('/v1/sessions', { token: credential, json: body });
}

describe('POST /v1/sessions → worker → GET results (the vertical slice)', () => {
  it('creates a session, runs it to completion and serves its results and sketches', async () => {
    const created = await createSession({
      type: 'remote_viewing',
      target: 'The object in envelope 4711',
      modality: 'visual',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      session_id: expect.stringMatching(/^sess_[0-9a-z]{26}$/),
      status: 'initiated',
      created_at: expect.any(String),
      estimated_completion: expect.any(String),
    });
    expect(new Date(created.body.estimated_completion).getTime()).toBeGreaterThan(
      new Date(created.body.created_at).getTime(),
    );
    const id = created.body.session_id;

    const done = await waitFor(async () => {
      const status = await client.get(`/v1/sessions/${id}`, { token });
      return status.body.status === 'completed' ? status : null;
    });
    expect(done.body).toMatchObject({
      session_id: id,
      type: 'remote_viewing',
      target: 'The object in envelope 4711',
      status: 'completed',
      progress: 100,
      current_phase: 'completed',
      results_available: true,
    });

    const results = await client.get(`/v1/sessions/${id}/results`, { token });
    expect(results.status).toBe(200);
    expect(results.body.status).toBe('completed');
    expect(results.body.metadata).toMatchObject({
      duration_minutes: 30,
      modality: 'visual',
      engine: 'simulated',
      evidence: 'prior',
    });
    const { coordinates, confidence_score, validation_metrics, sketches, descriptors } =
      results.body.results;
    expect(Math.abs(coordinates.latitude)).toBeLessThanOrEqual(90);
    expect(confidence_score).toBeGreaterThanOrEqual(0);
    expect(confidence_score).toBeLessThanOrEqual(1);
    expect(validation_metrics.accuracy).toBeGreaterThanOrEqual(0);
    expect(descriptors.length).toBeGreaterThan(0);
    expect(sketches.length).toBeGreaterThan(0);

    const sketch = await fetch(sketches[0].url, { headers: { authorization: `Bearer ${token}` } });
    expect(sketch.status).toBe(200);
    expect(sketch.headers.get('content-type')).toContain('image/svg+xml');
    expect(await sketch.text()).toMatch(/^<svg[^>]+xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  it('gives the same results for the same request in the same organisation (deterministic engine)', async () => {
    const body = {
      type: 'dowsing',
      target: 'Well water under the north field',
      duration_minutes: 45,
    };
    const ids = [
      (await createSession(body)).body.session_id,
      (await createSession(body)).body.session_id,
    ];
    const results = await Promise.all(
      ids.map((id) =>
        waitFor(async () => {
          const response = await client.get(`/v1/sessions/${id}/results`, { token });
          return response.body.status === 'completed' ? response.body : null;
        }),
      ),
    );
    const withoutUrls = (r: any) => ({
      ...r.results,
      sketches: r.results.sketches.map((s: any) => s.description),
    });
    expect(withoutUrls(results[0])).toEqual(withoutUrls(results[1]));
  });

  it('accepts the quick-start body (cue, session_type) and applies the defaults', async () => {
    const created = await createSession({
      cue: 'Where is the lost ring?',
      session_type: 'remote_viewing',
    });
    expect(created.status).toBe(201);
    const results = await client.get(`/v1/sessions/${created.body.session_id}/results`, { token });
    expect(results.body.metadata).toMatchObject({ duration_minutes: 30, modality: null });
    const read = await client.get(`/v1/sessions/${created.body.session_id}`, { token });
    expect(read.body).toMatchObject({ type: 'remote_viewing', target: 'Where is the lost ring?' });
  });

  it('never shows a classified session’s target: null in its read and in the list', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    const created = await createSession(
      { type: 'remote_viewing', target: 'Codeword basalt heron', privacy_level: 'classified' },
      ownToken,
    );
    expect(created.status).toBe(201);
    const id = created.body.session_id;
    const read = await client.get(`/v1/sessions/${id}`, { token: ownToken });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ session_id: id, type: 'remote_viewing', target: null });
    const listed = await client.get('/v1/sessions', { token: ownToken });
    expect(listed.body.results).toEqual([
      expect.objectContaining({ session_id: id, target: null }),
    ]);
    expect(JSON.stringify([read.body, listed.body])).not.toContain('basalt');
  });

  it('ends a session whose target contains [fail] in failed, with the reason', async () => {
    const created = await createSession({ type: 'remote_viewing', target: 'sandbox check [fail]' });
    const failed = await waitFor(async () => {
      const status = await client.get(`/v1/sessions/${created.body.session_id}`, { token });
      return status.body.status === 'failed' ? status.body : null;
    });
    expect(failed).toMatchObject({
      status: 'failed',
      current_phase: 'failed',
      results_available: false,
      failure_reason: 'engine_failure',
    });
    const results = await client.get(`/v1/sessions/${created.body.session_id}/results`, { token });
    expect(results.body).toMatchObject({ status: 'failed', failure_reason: 'engine_failure' });
    expect(results.body).not.toHaveProperty('results');
  });

  it('has no results while the session is still running', async () => {
    const created = await createSession({
      type: 'automatic_writing',
      target: 'A letter never sent',
    });
    const results = await client.get(`/v1/sessions/${created.body.session_id}/results`, { token });
    expect(results.status).toBe(200);
    expect(results.body).not.toHaveProperty('results');
  });
});

describe('POST /v1/sessions validation', () => {
  const valid = { type: 'remote_viewing', target: 'A valid target' };
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['empty target', { ...valid, target: '' }, 'target', 'must be 1 to 1000 characters'],
    ['missing target', { type: 'remote_viewing' }, 'target', 'is required'],
    ['blank target', { ...valid, target: '   ' }, 'target', 'must not be blank'],
    [
      'target over 1000 characters',
      { ...valid, target: 'x'.repeat(1001) },
      'target',
      'must be 1 to 1000 characters',
    ],
    ['target of the wrong type', { ...valid, target: 42 }, 'target', 'must be a string'],
    ['missing type', { target: 'x' }, 'type', 'is required'],
    [
      'unknown type',
      { ...valid, type: 'telepathy' },
      'type',
      'must be one of remote_viewing, dowsing, automatic_writing',
    ],
    [
      'unknown modality',
      { ...valid, modality: 'smell' },
      'modality',
      'must be one of visual, kinesthetic, auditory',
    ],
    [
      'duration below 5',
      { ...valid, duration_minutes: 4 },
      'duration_minutes',
      'must be an integer between 5 and 180',
    ],
    [
      'duration above 180',
      { ...valid, duration_minutes: 181 },
      'duration_minutes',
      'must be an integer between 5 and 180',
    ],
    [
      'fractional duration',
      { ...valid, duration_minutes: 30.5 },
      'duration_minutes',
      'must be an integer between 5 and 180',
    ],
    [
      'duration as a string',
      { ...valid, duration_minutes: '30' },
      'duration_minutes',
      'must be an integer between 5 and 180',
    ],
    [
      'unknown privacy level',
      { ...valid, privacy_level: 'secret' },
      'privacy_level',
      'must be one of public, private, classified',
    ],
    ['unknown field', { ...valid, colour: 'blue' }, 'colour', 'is not a recognised field'],
    [
      'both target and cue',
      { ...valid, cue: 'also' },
      'cue',
      'send either target or cue, not both',
    ],
  ];

  it.each(cases)('%s → 400 INVALID_REQUEST naming the field', async (_name, body, field, issue) => {
    const response = await createSession(body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field, issue },
      request_id: response.headers.get('x-request-id'),
    });
  });

  it('accepts the boundaries 5 and 180 and 1000-character targets', async () => {
    for (const body of [
      { ...valid, duration_minutes: 5 },
      { ...valid, duration_minutes: 180 },
      { ...valid, target: 'y'.repeat(1000) },
    ]) {
      expect((await createSession(body)).status).toBe(201);
    }
  });

  it('refuses a JSON array or a non-object body', async () => {
    const response = await client.post('/v1/sessions', {
      token,
      raw: { body: '[1,2]', contentType: 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('INVALID_REQUEST');
  });
});

describe('tenancy', () => {
  it('answers 404, never 403, for another organisation’s session', async () => {
    const created = await createSession({ type: 'remote_viewing', target: 'mine' });
    const other = await createOrganization(stack, client);
    const otherToken = await other.token();
    for (const path of [
      `/v1/sessions/${created.body.session_id}`,
      `/v1/sessions/${created.body.session_id}/results`,
      `/v1/sessions/${created.body.session_id}/sketches/0.svg`,
    ]) {
      const response = await client.get(path, { token: otherToken });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('keeps test-mode sessions apart from live ones', async () => {
    const testKey = await org.apiKey(undefined, 'test');
    const created = await client.post('/v1/sessions', {
      apiKey: testKey,
      json: { type: 'remote_viewing', target: 'sandbox' },
    });
    expect(created.status).toBe(201);
    expect(
      (await client.get(`/v1/sessions/${created.body.session_id}`, { apiKey: testKey })).status,
    ).toBe(200);
    expect((await client.get(`/v1/sessions/${created.body.session_id}`, { token })).status).toBe(
      404,
    );
  });

  it('answers 404 for malformed ids and ids of another kind', async () => {
    for (const id of [
      'nope',
      'sess_123',
      'evt_01m82sfbpbenftg57hv349pfkd',
      'sess_01m82sfbpbenftg57hv349pfkd',
    ]) {
      const response = await client.get(`/v1/sessions/${id}`, { token });
      expect(response.status).toBe(404);
    }
  });
});

describe('GET /v1/sessions', () => {
  it('lists the organisation’s sessions newest first, filtered by status and type, page by page', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    const ids: string[] = [];
    for (const type of ['remote_viewing', 'dowsing', 'remote_viewing']) {
      const created = await createSession({ type, target: `list ${type} [slow]` }, ownToken);
      ids.push(created.body.session_id);
    }
    const all = await client.get('/v1/sessions', { token: ownToken });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, limit: 20, offset: 0, has_more: false });
    expect(all.body.results.map((s: { session_id: string }) => s.session_id)).toEqual(
      [...ids].reverse(),
    );
    expect(all.body.results.map((s: { target: string }) => s.target)).toEqual([
      'list remote_viewing [slow]',
      'list dowsing [slow]',
      'list remote_viewing [slow]',
    ]);

    const dowsing = await client.get('/v1/sessions?type=dowsing', { token: ownToken });
    expect(dowsing.body.results.map((s: { session_id: string }) => s.session_id)).toEqual([ids[1]]);

    const page = await client.get('/v1/sessions?limit=2&offset=2', { token: ownToken });
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 2, has_more: false });
    expect(page.body.results).toHaveLength(1);
    const first = await client.get('/v1/sessions?limit=2', { token: ownToken });
    expect(first.body.has_more).toBe(true);

    await client.post(`/v1/sessions/${ids[0]}/cancel`, { token: ownToken });
    const failed = await client.get('/v1/sessions?status=failed', { token: ownToken });
    expect(failed.body.results.map((s: { session_id: string }) => s.session_id)).toEqual([ids[0]]);

    // Another organisation sees none of them.
    const others = await client.get('/v1/sessions?limit=100', { token });
    expect(
      others.body.results.some((s: { session_id: string }) => ids.includes(s.session_id)),
    ).toBe(false);
  });

  it.each([
    ['status=done', 'status'],
    ['type=tarot', 'type'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
  ])('refuses %s naming the field', async (query, field) => {
    const refused = await client.get(`/v1/sessions?${query}`, { token });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe(field);
  });
});

describe('POST /v1/sessions/{id}/cancel', () => {
  it('fails a running session with reason cancelled, announces it, and stops the work', async () => {
    const created = await createSession({
      type: 'remote_viewing',
      target: 'to be cancelled [slow]',
    });
    const id = created.body.session_id;
    const cancelled = await client.post(`/v1/sessions/${id}/cancel`, { token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      session_id: id,
      status: 'failed',
      failure_reason: 'cancelled',
      results_available: false,
    });
    const progress = cancelled.body.progress as number;
    // The runner's next step finds the session failed and stops: nothing moves afterwards.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const later = await client.get(`/v1/sessions/${id}`, { token });
    expect(later.body).toMatchObject({ status: 'failed', progress });

    const again = await client.post(`/v1/sessions/${id}/cancel`, { token });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'status' } });
  });

  it('refuses to cancel a completed session, and answers 404 for another organisation’s', async () => {
    const created = await createSession({ type: 'remote_viewing', target: 'finishes first' });
    const id = created.body.session_id;
    await waitFor(async () => {
      const status = await client.get(`/v1/sessions/${id}`, { token });
      return status.body.status === 'completed' ? true : null;
    });
    const refused = await client.post(`/v1/sessions/${id}/cancel`, { token });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.issue).toMatch(/completed/);

    const other = await createOrganization(stack, client);
    const foreign = await client.post(`/v1/sessions/${id}/cancel`, { token: await other.token() });
    expect(foreign.status).toBe(404);
  });
});

describe('DELETE /v1/sessions/{id}', () => {
  it('removes the session, redacts its events and keeps an audit record of who did it', async () => {
    const created = await createSession({ type: 'remote_viewing', target: 'Secret location 42' });
    const id = created.body.session_id;
    await waitFor(async () => {
      const status = await client.get(`/v1/sessions/${id}`, { token });
      return status.body.status === 'completed' ? true : null;
    });
    const readOnly = await org.token([Scope.SessionsRead, Scope.SessionsWrite]);
    expect((await client.delete(`/v1/sessions/${id}`, { token: readOnly })).status).toBe(403);
    const other = await createOrganization(stack, client);
    expect((await client.delete(`/v1/sessions/${id}`, { token: await other.token() })).status).toBe(
      404,
    );

    const deleted = await client.delete(`/v1/sessions/${id}`, {
      token,
      headers: { 'x-request-id': 'req_01m833xq4rf6ebqt1s6gy29qr7' },
    });
    expect(deleted.status).toBe(204);
    expect((await client.get(`/v1/sessions/${id}`, { token })).status).toBe(404);
    expect((await client.get(`/v1/sessions/${id}/results`, { token })).status).toBe(404);
    expect((await client.delete(`/v1/sessions/${id}`, { token })).status).toBe(404);

    const dataSource = stack.api.get(DataSource);
    const events: { data: Record<string, unknown> }[] = await dataSource.query(
      `SELECT data FROM events WHERE organization_id = $1 AND data->>'session_id' = $2`,
      [org.organizationId, id],
    );
    expect(events.length).toBeGreaterThanOrEqual(3);
    for (const { data } of events) {
      expect(data).toEqual({ session_id: id, sequence: expect.any(Number), redacted: true });
    }
    const [audit] = await dataSource.query(
      `SELECT action, actor_type, actor_id, target_type, request_id FROM audit_events WHERE target_id = $1`,
      [id],
    );
    expect(audit).toEqual({
      action: 'session.deleted',
      actor_type: 'client',
      actor_id: org.clientId,
      target_type: 'session',
      request_id: 'req_01m833xq4rf6ebqt1s6gy29qr7',
    });
  });

  it('stops a running session', async () => {
    const created = await createSession({
      type: 'remote_viewing',
      target: 'deleted mid-run [slow]',
    });
    const id = created.body.session_id;
    await waitFor(async () => {
      const status = await client.get(`/v1/sessions/${id}`, { token });
      return status.body.progress >= 10 ? true : null;
    });
    expect((await client.delete(`/v1/sessions/${id}`, { token })).status).toBe(204);
    // The runner's next step finds no session and stops without writing anything for it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const dataSource = stack.api.get(DataSource);
    const [{ count }] = await dataSource.query(
      `SELECT count(*)::int AS count FROM events
        WHERE data->>'session_id' = $1 AND NOT (data ? 'redacted')`,
      [id],
    );
    expect(count).toBe(0);
  });
});
