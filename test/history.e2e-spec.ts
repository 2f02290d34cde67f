import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, parsePublicId, Scope, toPublicId } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});
afterAll(async () => {
  await stack?.close();
});

/** Haversine on the mean sphere, written out here independently of the service's code. */
function haversineKm(a: [number, number], b: [number, number]): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h =
    Math.sin(rad(b[0] - a[0]) / 2) ** 2 +
    Math.cos(rad(a[0])) * Math.cos(rad(b[0])) * Math.sin(rad(b[1] - a[1]) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(h));
}

interface SeedCase {
  target: string;
  date: string;
  type?: string;
  description?: string;
  descriptors?: string[];
  outcome?: string;
  at?: [number, number];
  classified?: boolean;
  verdict?: string;
}

/** Cases of an organisation written as an import would write them (the import has its own tests). */
async function seed(org: TestOrganization, cases: SeedCase[], mode = 'live'): Promise<string[]> {
  const ids: string[] = [];
  for (const c of cases) {
    const { uuid, id } = newKey('history');
    await sql.rows(
      `INSERT INTO history_cases (organization_id, mode, id, source_type, external_id, type, work_status,
         classified, date, target, descriptors, description, outcome, latitude, longitude, verdict,
         verified_by, verified_at)
       VALUES ($1, $2, $3, 'import', $4, $5, 'completed', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        org.organizationId,
        mode,
        uuid,
        `ext-${id}`,
        c.type ?? 'remote_viewing',
        c.classified ?? false,
        c.date,
        c.target,
        c.descriptors ?? [],
        c.description ?? null,
        c.outcome ?? null,
        c.at?.[0] ?? null,
        c.at?.[1] ?? null,
        c.verdict ?? null,
        c.verdict ? 'test' : null,
        c.verdict ? c.date : null,
      ],
    );
    ids.push(id);
  }
  return ids;
}

async function caseOf(sourceUuid: string): Promise<string | null> {
  const [row] = await sql.rows<{ id: string }>(
    'SELECT id FROM history_cases WHERE source_id = $1',
    [sourceUuid],
  );
  return row ? toPublicId('history', row.id) : null;
}

describe('cases from finished work', () => {
  let org: TestOrganization;
  let token: string;
  beforeAll(async () => {
    org = await createOrganization(stack, client);
    token = await org.token();
  });

  it('turns an answered dowsing query into a case in the same transaction, and deletes it with the query', async () => {
    const asked = await client.post('/v1/dowsing/query', {
      token,
      json: {
        query_type: 'location',
        question: 'Where is the lost brass key?',
        context: { location: { latitude: 51.5074, longitude: -0.1278, radius_meters: 500 } },
      },
    });
    expect(asked.status).toBe(201);
    const caseId = await caseOf(parsePublicId('dowsing', asked.body.query_id)!);
    expect(caseId).toMatch(/^hist_[0-9a-z]{26}$/);

    const detail = await client.get(`/v1/history/${caseId}`, { token });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      case_id: caseId,
      type: 'dowsing',
      target: 'Where is the lost brass key?',
      client: null,
      process: { modality: 'divining_rod', phases: ['query'] },
      results: {
        location_found: null,
        coordinates: asked.body.result.coordinates && {
          latitude: asked.body.result.coordinates.latitude,
          longitude: asked.body.result.coordinates.longitude,
        },
        description: asked.body.result.answer,
        verification: null,
      },
      outcome: null,
      confidence_score: asked.body.result.confidence,
      validation: { independent_verification: false, accuracy_confirmed: false },
      status: 'completed',
      verdict: null,
      source: { type: 'dowsing_query', id: asked.body.query_id },
      classified: false,
    });

    const deleted = await client.delete(`/v1/dowsing/queries/${asked.body.query_id}`, { token });
    expect(deleted.status).toBe(204);
    expect((await client.get(`/v1/history/${caseId}`, { token })).status).toBe(404);
  });

  it('records sessions and analyses when the worker finishes them, failed ones too', async () => {
    const session = await client.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: 'Envelope 88: a lighthouse', modality: 'visual' },
    });
    const failing = await client.post('/v1/analysis/targets', {
      token,
      json: {
        target_type: 'object',
        reference_material: {},
        analysis_type: 'quick_scan',
        description: 'A sealed box [fail]',
      },
    });
    expect([session.status, failing.status]).toEqual([201, 201]);
    const sessionCase = await waitFor(() =>
      caseOf(parsePublicId('session', session.body.session_id)!),
    );
    const analysisCase = await waitFor(() =>
      caseOf(parsePublicId('analysis', failing.body.analysis_id)!),
    );

    const results = await client.get(`/v1/sessions/${session.body.session_id}/results`, {
      token,
    });
    const detail = (await client.get(`/v1/history/${sessionCase}`, { token })).body;
    expect(detail).toMatchObject({
      type: 'remote_viewing',
      target: 'Envelope 88: a lighthouse',
      status: 'completed',
      process: { duration_minutes: 30, modality: 'visual' },
      descriptors: results.body.results.descriptors,
      confidence_score: results.body.results.confidence_score,
      source: { type: 'session', id: session.body.session_id },
    });
    expect(detail.analysts.length).toBeGreaterThan(0);

    const failed = (await client.get(`/v1/history/${analysisCase}`, { token })).body;
    expect(failed).toMatchObject({ type: 'analysis', status: 'failed', confidence_score: null });
    expect(failed.results.description).toMatch(/^Failed: /);
    // A failed case gave nothing to verify.
    const verify = await client.put(`/v1/history/${analysisCase}/outcome`, {
      token,
      json: { verdict: 'hit', verified_by: 'tester' },
    });
    expect(verify.status).toBe(409);
    expect(verify.body.error.code).toBe('CONFLICT');
  });

  it('keeps a classified session’s case readable by id but out of search and similar cases', async () => {
    const session = await client.post('/v1/sessions', {
      token,
      json: {
        type: 'remote_viewing',
        target: 'Codeword zephyrine lighthouse',
        privacy_level: 'classified',
      },
    });
    const caseId = await waitFor(() => caseOf(parsePublicId('session', session.body.session_id)!));
    const detail = await client.get(`/v1/history/${caseId}`, { token });
    expect(detail.body).toMatchObject({
      classified: true,
      target: 'Codeword zephyrine lighthouse',
    });

    const search = await client.get('/v1/history/search?q=zephyrine', { token });
    expect(search.body).toMatchObject({ results: [], total: 0 });
    const similar = await client.post('/v2/history/similarity-search', {
      token,
      json: { text: 'Codeword zephyrine lighthouse' },
    });
    expect(similar.body.results.map((r: { id: string }) => r.id)).not.toContain(caseId);
  });
});

describe('PUT /v1/history/{case_id}/outcome', () => {
  let org: TestOrganization;
  let token: string;
  let caseId: string;
  beforeAll(async () => {
    org = await createOrganization(stack, client);
    token = await org.token();
    [caseId] = await seed(org, [
      { target: 'A water tower by the railway', date: '2025-03-01T10:00:00Z', at: [52.52, 13.405] },
    ]);
  });

  it('records the outcome, announces it and keeps the earlier one when it is corrected', async () => {
    const first = await client.put(`/v1/history/${caseId}/outcome`, {
      token,
      json: {
        verdict: 'partial',
        outcome: 'A tower, but not of water',
        location_found: true,
        coordinates: { latitude: 52.53, longitude: 13.41 },
        verified_by: 'Field team',
        verified_at: '2025-04-01T12:00:00Z',
      },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      verdict: 'partial',
      outcome: 'A tower, but not of water',
      results: { location_found: true, coordinates: { latitude: 52.52, longitude: 13.405 } },
      verified_coordinates: { latitude: 52.53, longitude: 13.41 },
      location: { latitude: 52.53, longitude: 13.41 },
      verified_by: 'Field team',
      verified_at: '2025-04-01T12:00:00.000Z',
      validation: { independent_verification: false, accuracy_confirmed: false },
    });
    expect(first.body.error_distance_km).toBeCloseTo(
      haversineKm([52.52, 13.405], [52.53, 13.41]),
      2,
    );

    const second = await client.put(`/v1/history/${caseId}/outcome`, {
      token,
      json: {
        verdict: 'hit',
        outcome: 'A water tower after all',
        independent_verification: true,
        accuracy_confirmed: true,
        verification: 'Second visit',
        verified_by: 'Auditor',
      },
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      verdict: 'hit',
      verified_coordinates: null,
      results: { verification: 'Second visit', location_found: null },
      validation: { independent_verification: true, accuracy_confirmed: true },
    });

    const events = await waitFor(async () => {
      const page = await client.get('/v2/events?per_page=100', { token });
      const found = page.body.data.filter(
        (e: { type: string; data: { case_id?: string } }) =>
          e.type === 'history.outcome_verified' && e.data.case_id === caseId,
      );
      return found.length === 2 ? found : null;
    });
    const byCorrection = Object.fromEntries(
      events.map((e: { data: { corrected: boolean } }) => [String(e.data.corrected), e.data]),
    );
    expect(byCorrection.false).toMatchObject({ verdict: 'partial', source: null, sequence: 1 });
    expect(byCorrection.true).toMatchObject({ verdict: 'hit', sequence: 2 });
    expect(JSON.stringify(events)).not.toContain('water tower');

    const audit = await sql.rows<{
      action: string;
      changes: Record<string, { before: unknown; after: unknown }>;
    }>(`SELECT action, changes FROM audit_events WHERE target_id = $1 ORDER BY created_at`, [
      caseId,
    ]);
    expect(audit.map((a) => a.action)).toEqual([
      'history_case.outcome_recorded',
      'history_case.outcome_corrected',
    ]);
    expect(audit[1]!.changes).toMatchObject({
      verdict: { before: 'partial', after: 'hit' },
      outcome: { before: 'A tower, but not of water' },
    });
  });

  it('refuses a bad outcome naming the field, and changes nothing', async () => {
    const before = (await client.get(`/v1/history/${caseId}`, { token })).body;
    for (const [body, field] of [
      [{ verified_by: 'x' }, 'verdict'],
      [{ verdict: 'maybe', verified_by: 'x' }, 'verdict'],
      [{ verdict: 'hit' }, 'verified_by'],
      [
        { verdict: 'hit', verified_by: 'x', coordinates: { latitude: 91, longitude: 0 } },
        'coordinates.latitude',
      ],
      [{ verdict: 'hit', verified_by: 'x', verified_at: '2999-01-01T00:00:00Z' }, 'verified_at'],
      [{ verdict: 'hit', verified_by: 'x', verified_at: 'yesterday' }, 'verified_at'],
      [{ verdict: 'hit', verified_by: 'x', surprise: true }, 'surprise'],
    ] as const) {
      const response = await client.put(`/v1/history/${caseId}/outcome`, { token, json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.details.field).toBe(field);
    }
    expect((await client.get(`/v1/history/${caseId}`, { token })).body).toEqual(before);
  });

  it('needs analytics:admin, and answers 404 for another organisation’s case', async () => {
    const reader = await org.token([Scope.AnalyticsRead]);
    const forbidden = await client.put(`/v1/history/${caseId}/outcome`, {
      token: reader,
      json: { verdict: 'miss', verified_by: 'x' },
    });
    expect(forbidden.status).toBe(403);
    const other = await createOrganization(stack, client);
    const theirs = await other.token();
    expect((await client.get(`/v1/history/${caseId}`, { token: theirs })).status).toBe(404);
    const put = await client.put(`/v1/history/${caseId}/outcome`, {
      token: theirs,
      json: { verdict: 'miss', verified_by: 'x' },
    });
    expect(put.status).toBe(404);
    expect((await client.get('/v1/history/hist_nonsense', { token })).status).toBe(404);
  });
});

describe('GET /v1/history/search', () => {
  let org: TestOrganization;
  let token: string;
  const BERLIN: [number, number] = [52.52, 13.405];
  const places: Record<string, [number, number]> = {
    potsdam: [52.3906, 13.0645], // ≈ 27 km from Berlin
    brandenburg: [52.4125, 12.5316], // ≈ 60 km
    leipzig: [51.3397, 12.3731], // ≈ 150 km
    hamburg: [53.5511, 9.9937], // ≈ 255 km
  };
  let ids: Record<string, string>;

  beforeAll(async () => {
    org = await createOrganization(stack, client);
    token = await org.token();
    const names = [
      'phrase',
      'reversed',
      'bridge',
      'described',
      'potsdam',
      'brandenburg',
      'leipzig',
      'hamburg',
      'escape',
      'newyear',
      'lastday',
      'classified',
    ];
    const seeded = await seed(org, [
      { target: 'A tall water tower', date: '2024-01-10T08:00:00Z', descriptors: ['metal'] },
      { target: 'Tower of the old water works', date: '2024-01-11T08:00:00Z' },
      { target: 'Water under the stone bridge', date: '2024-01-12T08:00:00Z' },
      {
        target: 'Unmarked envelope',
        description: 'The viewer described a tower and water',
        date: '2024-01-13T08:00:00Z',
      },
      {
        target: 'Palace garden',
        date: '2023-05-01T00:00:00Z',
        at: places.potsdam,
        type: 'dowsing',
      },
      {
        target: 'Cathedral island',
        date: '2023-05-02T00:00:00Z',
        at: places.brandenburg,
        type: 'dowsing',
      },
      {
        target: 'Old trade fair',
        date: '2023-05-03T00:00:00Z',
        at: places.leipzig,
        verdict: 'hit',
      },
      {
        target: 'Harbour crane',
        date: '2023-05-04T00:00:00Z',
        at: places.hamburg,
        verdict: 'miss',
      },
      { target: 'Well water < 5 m & "cold" > 3', date: '2022-01-01T00:00:00Z' },
      { target: 'New year fireworks', date: '2021-01-01T00:00:00Z' },
      { target: 'Last day of the year', date: '2020-12-31T23:59:59.999Z' },
      { target: 'Secret water tower', date: '2024-01-14T08:00:00Z', classified: true },
    ]);
    ids = Object.fromEntries(names.map((name, i) => [name, seeded[i]!]));
  });

  async function search(query: string, version = 1) {
    const response = await client.get(`/v${version}/history/search?${query}`, { token });
    expect(response.status, query).toBe(200);
    return response.body;
  }
  const idsOf = (body: { results?: { id: string }[]; data?: { id: string }[] }) =>
    (body.results ?? body.data)!.map((r) => r.id);

  it('lists every case but the classified one, newest first, without q', async () => {
    const body = await search('limit=100');
    expect(body).toMatchObject({ total: 11, limit: 100, offset: 0, has_more: false });
    expect(idsOf(body)).not.toContain(ids.classified);
    const dates = body.results.map((r: { date: string }) => r.date);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(body.results[0].snippet).toBeUndefined();
  });

  it('matches all words, ranks the target above the description, and honours phrases, OR and -word', async () => {
    const words = await search(`q=${encodeURIComponent('water tower')}`);
    expect(new Set(idsOf(words))).toEqual(new Set([ids.phrase, ids.reversed, ids.described]));
    expect(idsOf(words).at(-1)).toBe(ids.described);
    expect(words.results[0].relevance).toBeGreaterThan(words.results[2].relevance);

    const phrase = await search(`q=${encodeURIComponent('"water tower"')}`);
    expect(idsOf(phrase)).toEqual([ids.phrase]);

    const negation = await search(`q=${encodeURIComponent('water -tower')}`);
    expect(new Set(idsOf(negation))).toEqual(new Set([ids.bridge, ids.escape]));

    const either = await search(`q=${encodeURIComponent('bridge OR fireworks')}`);
    expect(new Set(idsOf(either))).toEqual(new Set([ids.bridge, ids.newyear]));

    // Stemming: "towers" finds "tower".
    expect(idsOf(await search('q=towers&limit=100'))).toContain(ids.phrase);
  });

  it('highlights matches in escaped snippets', async () => {
    const body = await search('q=water&type=remote_viewing');
    const escaped = body.results.find((r: { id: string }) => r.id === ids.escape);
    expect(escaped.snippet).toBe('Well <mark>water</mark> &lt; 5 m &amp; &quot;cold&quot; &gt; 3');
    const phrase = body.results.find((r: { id: string }) => r.id === ids.phrase);
    expect(phrase.snippet).toBe('A tall <mark>water</mark> tower — metal');
  });

  it('finds the cases within a radius, as haversine distances say', async () => {
    for (const radius of [20, 30, 100, 200, 300]) {
      const body = await search(`location=${BERLIN.join(',')},${radius}`);
      const expected = Object.entries(places)
        .filter(([, at]) => haversineKm(BERLIN, at) <= radius)
        .map(([name]) => ids[name]);
      expect(new Set(idsOf(body)), `radius ${radius}`).toEqual(new Set(expected));
    }
    // Just inside and just outside Potsdam's distance.
    const potsdam = haversineKm(BERLIN, places.potsdam);
    expect(
      idsOf(await search(`location=${BERLIN.join(',')},${(potsdam + 0.01).toFixed(3)}`)),
    ).toEqual([ids.potsdam]);
    expect(
      idsOf(await search(`location=${BERLIN.join(',')},${(potsdam - 0.01).toFixed(3)}`)),
    ).toEqual([]);
    // A box around Berlin and Leipzig, and a filter on the verified ones in it.
    const box = await search('bbox=51,12,53,14');
    expect(new Set(idsOf(box))).toEqual(new Set([ids.potsdam, ids.brandenburg, ids.leipzig]));
    expect(idsOf(await search('bbox=51,12,53,14&outcome=verified'))).toEqual([ids.leipzig]);
    expect(idsOf(await search('outcome=verified'))).toEqual([ids.hamburg, ids.leipzig]);
    expect(idsOf(await search('type=dowsing&location=52.52,13.405,100'))).toHaveLength(2);
  });

  it('takes date bounds inclusively, a date meaning its whole day', async () => {
    expect(idsOf(await search('date_from=2020-12-31&date_to=2021-01-01'))).toEqual([
      ids.newyear,
      ids.lastday,
    ]);
    expect(idsOf(await search('date_to=2020-12-31'))).toEqual([ids.lastday]);
    expect(
      idsOf(await search('date_from=2021-01-01T00:00:00Z&date_to=2021-01-01T00:00:00Z')),
    ).toEqual([ids.newyear]);
    expect(idsOf(await search('date_from=2021-01-01T00:00:00.001Z&date_to=2022-01-01'))).toEqual([
      ids.escape,
    ]);
  });

  it('pages with limit and offset (v1) and with a cursor (v2), with and without q', async () => {
    const all = idsOf(await search('limit=100'));
    const paged: string[] = [];
    for (let offset = 0; offset < all.length; offset += 4) {
      const page = await search(`limit=4&offset=${offset}`);
      expect(page.has_more).toBe(offset + 4 < all.length);
      paged.push(...idsOf(page));
    }
    expect(paged).toEqual(all);

    for (const q of ['', '&q=water']) {
      const whole = idsOf(await search(`per_page=100${q}`, 2));
      const walked: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await search(
          `per_page=2${q}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          2,
        );
        pages += 1;
        expect(page.pagination).toMatchObject({ page: pages, per_page: 2, total: whole.length });
        walked.push(...idsOf(page));
        cursor = page.pagination.next_cursor;
      } while (cursor);
      expect(walked).toEqual(whole);
    }
  });

  it('refuses bad parameters naming them, never a 500', async () => {
    for (const [query, field] of [
      ['location=52.5,13.4', 'location'],
      ['location=95,13.4,10', 'location'],
      ['location=52.5,13.4,0', 'location'],
      ['location=52.5,13.4,-5', 'location'],
      ['bbox=53,12,51,14', 'bbox'],
      ['bbox=a,b,c,d', 'bbox'],
      ['date_from=yesterday', 'date_from'],
      ['date_from=2024-02-30', 'date_from'],
      ['date_from=2024-02-01&date_to=2024-01-01', 'date_to'],
      ['limit=101', 'limit'],
      ['offset=10001', 'offset'],
      [`q=${'a'.repeat(10_000)}`, 'q'],
      [`q=${encodeURIComponent('"" OR - -- !! ||| & ()')}`, 'q'],
      [`q=${encodeURIComponent('the and of')}`, 'q'],
      ['q=%20%20', 'q'],
      ['type=seance', 'type'],
      ['outcome=maybe', 'outcome'],
    ] as const) {
      const response = await client.get(`/v1/history/search?${query}`, { token });
      expect(response.status, query.slice(0, 60)).toBe(400);
      expect(response.body.error.code).toBe('INVALID_REQUEST');
      expect(response.body.error.details.field, query.slice(0, 60)).toBe(field);
    }
    const v2 = await client.get('/v2/history/search?cursor=bm9wZQ', { token });
    expect(v2.status).toBe(400);
    expect(v2.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'cursor' } });
    // A window cursor of a text search is refused without its q.
    const first = await search('per_page=1&q=water', 2);
    const wrong = await client.get(
      `/v2/history/search?per_page=1&cursor=${encodeURIComponent(first.pagination.next_cursor)}`,
      { token },
    );
    expect(wrong.status).toBe(400);
  });

  it('finds similar cases with their components, never the case itself or a classified one', async () => {
    const response = await client.get(`/v1/history/similar?case_id=${ids.phrase}&limit=5`, {
      token,
    });
    expect(response.status).toBe(200);
    const found = response.body.results;
    expect(found.map((r: { id: string }) => r.id)).not.toContain(ids.phrase);
    expect(found.map((r: { id: string }) => r.id)).not.toContain(ids.classified);
    expect(found[0].id).toBe(ids.reversed);
    for (const item of found) {
      expect(item.similarity).toBeGreaterThanOrEqual(0);
      expect(item.similarity).toBeLessThanOrEqual(1);
      expect(item.similarity_components).toHaveProperty('text');
    }
    const similarities = found.map((r: { similarity: number }) => r.similarity);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));

    const near = await client.post('/v2/history/similarity-search', {
      token,
      json: { coordinates: { latitude: 52.52, longitude: 13.405 }, limit: 2 },
    });
    expect(near.status).toBe(200);
    expect(near.body.results.map((r: { id: string }) => r.id)).toEqual([
      ids.potsdam,
      ids.brandenburg,
    ]);
    const potsdam = near.body.results[0];
    expect(potsdam.distance_km).toBeCloseTo(haversineKm(BERLIN, places.potsdam), 2);
    expect(potsdam.similarity_components).toEqual({
      text: null,
      descriptors: null,
      distance: expect.closeTo(Math.exp(-potsdam.distance_km / 100), 5),
      time: null,
    });
    expect(potsdam.similarity).toBeCloseTo(potsdam.similarity_components.distance, 5);

    const empty = await client.post('/v2/history/similarity-search', { token, json: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.field).toBe('text');
    const unknown = await client.get(
      '/v1/history/similar?case_id=hist_01jh2x7v4ke8rbk3a8y0v0d7qz',
      {
        token,
      },
    );
    expect(unknown.status).toBe(404);
  });
});
