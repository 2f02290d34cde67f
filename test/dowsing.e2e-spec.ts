import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;
let ca: TestCertificateAuthority;

const LONDON = { latitude: 51.5074, longitude: -0.1278 };

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  stack = await startStack({
    env: { OUTBOUND_EXTRA_CA_FILE: ca.caFile, OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' },
  });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
});
afterAll(async () => {
  await stack?.close();
  await ca?.cleanup();
});

function ask(path: string, body: Record<string, unknown>, credential = token) {
  return client.post(`/v1/dowsing/${path}`, { token: credential, json: body });
}

async function eventsOf(queryId: string, credential = token) {
  const events = await client.get('/v2/events?per_page=100', { token: credential });
  return events.body.data.filter(
    (event: { data: { query_id?: string } }) => event.data.query_id === queryId,
  );
}

describe('POST /v1/dowsing/query', () => {
  it('answers a yes/no question in the request, honestly at chance, and announces it through the outbox', async () => {
    const response = await ask('query', {
      query_type: 'yes_no',
      question: 'Is there water under the north field?',
      context: { timeframe: 'present' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      query_id: expect.stringMatching(/^dowse_[0-9a-z]{26}$/),
      status: 'completed',
      variant: 'query',
      query_type: 'yes_no',
      result: {
        answer: expect.stringMatching(/^(positive|negative|neutral)$/),
        confidence: expect.any(Number),
        additional_insights: expect.any(Array),
        chart_data: { chart_type: expect.any(String), readings: expect.any(Array) },
      },
      metadata: { engine: 'simulated', evidence: 'prior', precision_level: 'standard' },
    });
    expect(response.body.result.coordinates).toBeUndefined();
    // The same question gives the same answer (the simulator is a pure function of it).
    const again = await ask('query', {
      query_type: 'yes_no',
      question: 'Is there water under the north field?',
      context: { timeframe: 'present' },
    });
    expect(again.body.result).toEqual(response.body.result);

    const id = response.body.query_id;
    const events = await waitFor(async () => {
      const found = await eventsOf(id);
      return found.length === 2 ? found : null;
    });
    const completed = events.find((e: { type: string }) => e.type === 'dowsing.query_completed');
    expect(completed.data).toMatchObject({
      query_id: id,
      query_type: 'yes_no',
      variant: 'query',
      question: 'Is there water under the north field?',
      answer: response.body.result.answer,
      confidence: response.body.result.confidence,
      coordinates: null,
      chart_data: response.body.result.chart_data,
      completed_at: response.body.completed_at,
    });
    expect(events.map((e: { type: string }) => e.type).sort()).toEqual([
      'dowsing.query_completed',
      'dowsing.query_created',
    ]);
  });

  it('keeps a location answer inside the search circle, with accuracy from the precision level', async () => {
    const circle = { ...LONDON, radius_meters: 500 };
    const standard = await ask('query', {
      query_type: 'location',
      question: 'Where is the lost key?',
      context: { location: circle },
    });
    const maximum = await ask('query', {
      query_type: 'location',
      question: 'Where is the lost key?',
      context: { location: circle },
      precision_level: 'maximum',
    });
    for (const response of [standard, maximum]) {
      expect(response.status).toBe(201);
      const { latitude, longitude, accuracy_meters } = response.body.result.coordinates;
      const dy = (latitude - LONDON.latitude) * 111_320;
      const dx =
        (longitude - LONDON.longitude) * 111_320 * Math.cos((LONDON.latitude * Math.PI) / 180);
      expect(Math.hypot(dx, dy)).toBeLessThanOrEqual(500 * 1.001);
      expect(accuracy_meters).toBeGreaterThan(0);
    }
    expect(maximum.body.result.coordinates.accuracy_meters).toBeLessThan(
      standard.body.result.coordinates.accuracy_meters,
    );
  });

  it('fails on [fail] in the question, with the reason, and dowsing.query_failed', async () => {
    const response = await ask('query', { query_type: 'yes_no', question: 'Broken [fail]' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ status: 'failed', failure_reason: 'engine_failure' });
    expect(response.body.result).toBeUndefined();
    const events = await waitFor(async () => {
      const found = await eventsOf(response.body.query_id);
      return found.length === 2 ? found : null;
    });
    expect(events.map((e: { type: string }) => e.type).sort()).toEqual([
      'dowsing.query_created',
      'dowsing.query_failed',
    ]);
  });

  it('words the simulated answer after the mode: the sandbox says so, live work names the engine', async () => {
    const body = { query_type: 'yes_no', question: 'Is there water under the east field?' };
    const sandboxKey = await org.apiKey(undefined, 'test');
    const sandbox = await client.post('/v1/dowsing/query', { apiKey: sandboxKey, json: body });
    const live = await ask('query', body);
    for (const response of [sandbox, live]) {
      expect(response.status, response.text).toBe(201);
      expect(response.body.metadata.engine).toBe('simulated');
    }
    const note = (response: typeof live) =>
      (response.body.result.additional_insights as string[]).at(-1);
    expect(note(sandbox)).toMatch(/^Sandbox simulation: /);
    expect(note(live)).toMatch(
      /^Simulated engine: this live query was answered by the simulated engine/,
    );
    expect((live.body.result.additional_insights as string[]).join(' ')).not.toMatch(/sandbox/i);
    // v2 reads the stored result: the same words.
    const read = await client.get(`/v2/dowsing/queries/${live.body.query_id}`, { token });
    expect(read.status, read.text).toBe(200);
    expect(JSON.stringify(read.body)).not.toMatch(/Sandbox simulation/);
  });
});

describe('the seven variants', () => {
  it.each([
    [
      'multi-point',
      'multi_point',
      {
        points: [
          { name: 'north gate', latitude: 51.509, longitude: -0.128 },
          { name: 'south gate', latitude: 51.505, longitude: -0.128 },
        ],
      },
    ],
    [
      'energy-map',
      'energy_map',
      {
        bounds: { south: 51.5, west: -0.13, north: 51.51, east: -0.11 },
        grid: { rows: 4, columns: 5 },
      },
    ],
    ['depth-analysis', 'depth_analysis', { point: LONDON, max_depth_meters: 60 }],
    [
      'material-identification',
      'material_identification',
      {
        sample_description: 'grey powder',
        candidates: ['limestone', 'clay', 'iron'],
      },
    ],
    [
      'chart-analysis',
      'chart_analysis',
      {
        question: 'Which room?',
        options: ['kitchen', 'hall', 'garden'],
      },
    ],
    [
      'location-finding',
      'location_finding',
      {
        area: { ...LONDON, radius_meters: 300 },
        sought: 'the ring',
        max_candidates: 2,
      },
    ],
    [
      'energy-detection',
      'energy_detection',
      {
        point: LONDON,
        window: { from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z' },
      },
    ],
  ])(
    'POST /v1/dowsing/%s is stored as variant %s with its own result',
    async (path, variant, body) => {
      const response = await ask(path, body);
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ status: 'completed', variant });
      expect(response.body.result.variant_result).toEqual(expect.any(Object));
      const read = await client.get(`/v1/dowsing/queries/${response.body.query_id}`, { token });
      expect(read.body).toEqual(response.body);
      const v2 = await client.get(`/v2/dowsing/queries/${response.body.query_id}`, { token });
      expect(v2.body.result).toMatchObject({
        statistical_significance: {
          p_value: expect.any(Number),
          effect_size: expect.any(Number),
          sample_size: expect.any(Number),
        },
        locations: expect.any(Array),
        baseline: expect.any(Number),
      });
      expect(v2.body.result.statistical_significance.p_value).toBeGreaterThan(0);
    },
  );

  it('ranks materials and chart options with probabilities that sum to 1', async () => {
    const material = await ask('material-identification', { sample_description: 'red dust' });
    const candidates = material.body.result.variant_result.candidates as { probability: number }[];
    expect(candidates.reduce((sum, c) => sum + c.probability, 0)).toBeCloseTo(1, 9);
    const chart = await ask('chart-analysis', {
      question: 'Which?',
      options: ['a', 'b', 'c', 'd'],
    });
    const strengths = chart.body.result.variant_result.option_strengths as { strength: number }[];
    expect(strengths).toHaveLength(4);
    expect(strengths.reduce((sum, s) => sum + s.strength, 0)).toBeCloseTo(1, 9);
  });
});

describe('bad input names its field', () => {
  it.each([
    ['query', { query_type: 'maybe', question: 'x' }, 'query_type'],
    ['query', { query_type: 'yes_no', question: '' }, 'question'],
    ['query', { query_type: 'yes_no', question: 'x'.repeat(1001) }, 'question'],
    ['query', { query_type: 'location', question: 'Where?' }, 'context.location'],
    [
      'query',
      {
        query_type: 'location',
        question: 'Where?',
        context: { location: { latitude: 91, longitude: 0, radius_meters: 10 } },
      },
      'context.location.latitude',
    ],
    [
      'query',
      {
        query_type: 'location',
        question: 'Where?',
        context: { location: { ...LONDON, radius_meters: 0.5 } },
      },
      'context.location.radius_meters',
    ],
    [
      'query',
      {
        query_type: 'location',
        question: 'Where?',
        context: { location: { ...LONDON, radius_meters: 100_001 } },
      },
      'context.location.radius_meters',
    ],
    [
      'query',
      {
        query_type: 'yes_no',
        question: 'x',
        context: {
          parameters: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
        },
      },
      'context.parameters',
    ],
    [
      'query',
      { query_type: 'yes_no', question: 'x', context: { parameters: { blob: 'x'.repeat(9000) } } },
      'context.parameters',
    ],
    [
      'query',
      {
        query_type: 'information',
        question: 'x',
        context: { parameters: { options: ['only one'] } },
      },
      'context.parameters.options',
    ],
    [
      'query',
      { query_type: 'yes_no', question: 'x', precision_level: 'extreme' },
      'precision_level',
    ],
    ['query', { query_type: 'yes_no', question: 'x', surprise: 1 }, 'surprise'],
    [
      'energy-map',
      {
        bounds: { south: 51.5, west: -0.13, north: 51.51, east: -0.11 },
        grid: { rows: 101, columns: 5 },
      },
      'grid.rows',
    ],
    [
      'energy-map',
      {
        bounds: { south: 51.6, west: -0.13, north: 51.51, east: -0.11 },
        grid: { rows: 2, columns: 2 },
      },
      'bounds.north',
    ],
    [
      'energy-map',
      {
        bounds: { south: 51.5, west: -0.13, north: 51.51, east: -0.11 },
        grid: { rows: 1, columns: 1 },
      },
      'grid',
    ],
    [
      'material-identification',
      { sample_description: 'x', candidates: ['iron', 'unobtainium'] },
      'candidates.1',
    ],
    ['chart-analysis', { question: 'x', options: ['one'] }, 'options'],
    [
      'chart-analysis',
      { question: 'x', options: Array.from({ length: 101 }, (_, i) => `o${i}`) },
      'options',
    ],
    [
      'multi-point',
      {
        points: [
          { name: 'a', ...LONDON },
          { name: 'a', ...LONDON },
        ],
      },
      'points.1.name',
    ],
    ['material-identification', {}, 'sample_description'],
    [
      'energy-detection',
      { point: LONDON, window: { from: '2026-11-08T00:00:00Z', to: '2026-11-01T00:00:00Z' } },
      'window.to',
    ],
    [
      'location-finding',
      { area: { ...LONDON, radius_meters: 300 }, sought: 'x', max_candidates: 11 },
      'max_candidates',
    ],
  ])('POST /v1/dowsing/%s %j → 400 naming %s', async (path, body, field) => {
    const response = await ask(path, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field } });
  });

  it('answers v2 batch errors as VALIDATION_ERROR naming the item', async () => {
    const response = await client.post('/v2/dowsing/batch', {
      token,
      json: {
        queries: [
          { variant: 'query', query_type: 'yes_no', question: 'ok' },
          { variant: 'chart_analysis', question: 'ok', options: ['a', 'b'] },
          { variant: 'query', query_type: 'yes_no', question: '' },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'queries.2.question' },
    });
    const unknown = await client.post('/v2/dowsing/batch', {
      token,
      json: { queries: [{ variant: 'crystal_ball', question: 'x' }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.field).toBe('queries.0.variant');
  });
});

describe('lists, batches and delete', () => {
  it('stores a v2 batch all at once, serves it through the batch paths and the lists', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    const created = await client.post('/v2/dowsing/batch', {
      token: ownToken,
      json: {
        queries: [
          { variant: 'query', query_type: 'yes_no', question: 'One?' },
          { variant: 'chart_analysis', question: 'Two?', options: ['a', 'b', 'c'] },
          {
            variant: 'location_finding',
            area: { ...LONDON, radius_meters: 200 },
            sought: 'three',
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'dowsing',
      status: 'completed',
      total: 3,
      counts: { pending: 0, completed: 3, failed: 0 },
    });
    expect(created.body.queries.map((q: { variant: string }) => q.variant)).toEqual([
      'query',
      'chart_analysis',
      'location_finding',
    ]);
    const status = await client.get(`/v1/batch/${created.body.batch_id}/status`, {
      token: ownToken,
    });
    expect(status.body).toMatchObject({ kind: 'dowsing', progress: 100 });
    const results = await client.get(`/v1/batch/${created.body.batch_id}/results`, {
      token: ownToken,
    });
    expect(results.body.results.map((r: { query_id: string }) => r.query_id)).toEqual(
      created.body.queries.map((q: { query_id: string }) => q.query_id),
    );

    const information = await client.get('/v1/dowsing/queries?query_type=information', {
      token: ownToken,
    });
    expect(information.body.total).toBe(1);
    const first = await client.get('/v2/dowsing/queries?per_page=2', { token: ownToken });
    expect(first.body.pagination).toMatchObject({ total: 3, has_next: true });
    const second = await client.get(
      `/v2/dowsing/queries?per_page=2&cursor=${first.body.pagination.next_cursor}`,
      { token: ownToken },
    );
    expect(second.body.data).toHaveLength(1);
  });

  it('deletes a query: gone from reads, its events redacted', async () => {
    const { body } = await ask('query', { query_type: 'yes_no', question: 'Secret?' });
    await waitFor(async () => ((await eventsOf(body.query_id)).length === 2 ? true : null));
    expect((await client.delete(`/v1/dowsing/queries/${body.query_id}`, { token })).status).toBe(
      204,
    );
    expect((await client.get(`/v1/dowsing/queries/${body.query_id}`, { token })).status).toBe(404);
    for (const event of await eventsOf(body.query_id)) {
      expect(Object.keys(event.data).sort()).toEqual(['query_id', 'redacted', 'sequence']);
    }
  });

  it("never shows another organisation's queries", async () => {
    const other = await createOrganization(stack, client);
    const otherToken = await other.token();
    const { body } = await ask('query', { query_type: 'yes_no', question: 'Mine?' });
    for (const path of [
      `/v1/dowsing/queries/${body.query_id}`,
      `/v2/dowsing/queries/${body.query_id}`,
    ]) {
      expect((await client.get(path, { token: otherToken })).status).toBe(404);
    }
    expect(
      (await client.delete(`/v1/dowsing/queries/${body.query_id}`, { token: otherToken })).status,
    ).toBe(404);
    const list = await client.get('/v1/dowsing/queries', { token: otherToken });
    expect(list.body.total).toBe(0);
  });
});

describe('webhooks', () => {
  it('delivers dowsing.query_completed to a subscribed HTTPS endpoint with the spec data shape in full', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    const receiver = await startHttpsReceiver({ certificate: ca.leaf });
    try {
      const hook = await client.post('/v1/webhooks', {
        token: ownToken,
        json: { url: receiver.url, events: ['dowsing.query_completed'] },
      });
      expect(hook.status).toBe(201);
      const { body } = await ask(
        'query',
        {
          query_type: 'location',
          question: 'Where is the spring?',
          context: { location: { ...LONDON, radius_meters: 1000 } },
        },
        ownToken,
      );
      const [request] = await receiver.waitForRequests(1);
      const delivery = JSON.parse(request!.rawBody);
      expect(delivery).toMatchObject({ type: 'dowsing.query_completed', livemode: true });
      expect(Object.keys(delivery.data).sort()).toEqual(
        [
          'answer',
          'chart_data',
          'completed_at',
          'confidence',
          'coordinates',
          'query_id',
          'query_type',
          'question',
          'sequence',
          'variant',
        ].sort(),
      );
      expect(delivery.data).toMatchObject({
        query_id: body.query_id,
        question: 'Where is the spring?',
        answer: body.result.answer,
        confidence: body.result.confidence,
        coordinates: body.result.coordinates,
        chart_data: body.result.chart_data,
      });
    } finally {
      await receiver.close();
    }
  });
});
