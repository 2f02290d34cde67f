import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, parsePublicId, Scope, toPublicId } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { backdateWork, seedDeliveries } from './support/dashboard-seed.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  // The dashboard's webhook figures come from an endpoint on this machine (deliveries seeded).
  stack = await startStack({ worker: true, env: { WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});
afterAll(async () => {
  await stack?.close();
});

/** Wilson 95 % interval, written out here independently of the service's code. */
function wilson(successes: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = successes / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** P(X ≥ k | n, p) by summing the binomial terms. */
function binomialTail(k: number, n: number, p: number): number {
  let sum = 0;
  for (let i = k; i <= n; i++) {
    let choose = 1;
    for (let j = 0; j < i; j++) choose = (choose * (n - j)) / (j + 1);
    sum += choose * p ** i * (1 - p) ** (n - i);
  }
  return sum;
}

function expectRate(
  rate: Record<string, number> | null,
  hits: number,
  n: number,
  baseline: number,
): void {
  const [low, high] = wilson(hits, n);
  expect(rate).not.toBeNull();
  expect(rate!.successes).toBe(hits);
  expect(rate!.n).toBe(n);
  expect(rate!.value).toBeCloseTo(hits / n, 6);
  // The mean baseline is reported to 6 decimals; the p-value is against the reported one.
  expect(rate!.baseline).toBeCloseTo(baseline, 5);
  expect(rate!.ci_low).toBeCloseTo(low, 5);
  expect(rate!.ci_high).toBeCloseTo(high, 5);
  expect(rate!.p_value).toBeCloseTo(binomialTail(hits, n, rate!.baseline), 6);
}

interface SeedCase {
  date: string;
  type?: string;
  subtype?: string;
  modality?: string;
  workStatus?: string;
  classified?: boolean;
  analysts?: string[];
  confidence?: number;
  baseline?: number;
  verdict?: string;
}

/** Cases written as an import writes them (the import has its own tests). */
async function seed(org: TestOrganization, cases: SeedCase[], mode = 'live'): Promise<string[]> {
  const ids: string[] = [];
  for (const c of cases) {
    const { uuid, id } = newKey('history');
    await sql.rows(
      `INSERT INTO history_cases (organization_id, mode, id, source_type, type, subtype, modality,
         work_status, classified, date, target, analysts, confidence_score, chance_baseline, verdict,
         verified_by, verified_at)
       VALUES ($1, $2, $3, 'import', $4, $5, $6, $7, $8, $9, 'a target', $10, $11, $12, $13, $14, $15)`,
      [
        org.organizationId,
        mode,
        uuid,
        c.type ?? 'remote_viewing',
        c.subtype ?? null,
        c.modality ?? null,
        c.workStatus ?? 'completed',
        c.classified ?? false,
        c.date,
        c.analysts ?? [],
        c.confidence ?? null,
        c.baseline ?? null,
        c.verdict ?? null,
        c.verdict ? 'test' : null,
        c.verdict ? c.date : null,
      ],
    );
    ids.push(id);
  }
  return ids;
}

/**
 * Remote viewing: 2 hits, a partial and a miss (p0 = 1/4, the judging set of
 * 4); dowsing: a hit recording its own baseline of 0.5 and an unverified
 * case; a failed analysis; a classified hit that never counts.
 */
const FIXED: SeedCase[] = [
  {
    date: '2026-03-02T10:00:00Z',
    modality: 'visual',
    verdict: 'hit',
    confidence: 0.8,
    analysts: ['ana'],
  },
  {
    date: '2026-03-02T15:00:00Z',
    modality: 'visual',
    verdict: 'miss',
    confidence: 0.4,
    analysts: ['ana'],
  },
  {
    date: '2026-03-03T09:00:00Z',
    modality: 'auditory',
    verdict: 'partial',
    confidence: 0.6,
    analysts: ['ana', 'bob'],
  },
  { date: '2026-03-04T23:30:00Z', modality: 'visual', verdict: 'hit', analysts: ['bob', 'bob'] },
  {
    date: '2026-03-04T08:00:00Z',
    type: 'dowsing',
    subtype: 'yes_no',
    modality: 'pendulum',
    verdict: 'hit',
    baseline: 0.5,
    confidence: 0.7,
  },
  {
    date: '2026-03-05T12:00:00Z',
    type: 'dowsing',
    subtype: 'yes_no',
    modality: 'pendulum',
    confidence: 0.2,
  },
  { date: '2026-03-06T12:00:00Z', type: 'analysis', workStatus: 'failed' },
  {
    date: '2026-03-05T12:00:00Z',
    modality: 'visual',
    verdict: 'hit',
    confidence: 1,
    classified: true,
    analysts: ['ana'],
  },
];

describe('GET /v1/history/analytics', () => {
  let org: TestOrganization;
  let token: string;
  let ids: string[];
  beforeAll(async () => {
    org = await createOrganization(stack, client);
    token = await org.token([Scope.AnalyticsRead, Scope.AnalyticsAdmin]);
    ids = await seed(org, FIXED);
    // The same cases in the sandbox and in another organisation never count here.
    await seed(org, FIXED, 'sandbox');
    await seed(await createOrganization(stack, client), FIXED);
  });

  it('counts by type, outcome, modality and status, with hit rates against chance; classified cases never', async () => {
    const response = await client.get('/v1/history/analytics', { token });
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body.total).toMatchObject({
      cases: 7,
      outcomes: { hit: 3, partial: 1, miss: 1, unverified: 2 },
    });
    // 3 hits of 5 verified against the mean baseline (4 × 0.25 + 0.5) / 5 = 0.3.
    expectRate(body.total.hit_rate, 3, 5, 0.3);
    expect(body.by_type.map((t: { type: string }) => t.type)).toEqual([
      'analysis',
      'dowsing',
      'remote_viewing',
    ]);
    const [analysis, dowsing, remote] = body.by_type;
    expect(analysis).toMatchObject({ cases: 1, outcomes: { unverified: 1 }, hit_rate: null });
    expect(dowsing).toMatchObject({
      cases: 2,
      outcomes: { hit: 1, partial: 0, miss: 0, unverified: 1 },
    });
    expectRate(dowsing.hit_rate, 1, 1, 0.5);
    expect(remote).toMatchObject({
      cases: 4,
      outcomes: { hit: 2, partial: 1, miss: 1, unverified: 0 },
    });
    expectRate(remote.hit_rate, 2, 4, 0.25);
    expect(remote.hit_rate.ci_low).toBeCloseTo(0.150039, 5);
    expect(remote.hit_rate.ci_high).toBeCloseTo(0.849961, 5);
    expect(remote.hit_rate.p_value).toBeCloseTo(67 / 256, 6);
    expect(
      body.by_modality.map((m: { modality: string | null; cases: number }) => [
        m.modality,
        m.cases,
      ]),
    ).toEqual([
      ['auditory', 1],
      ['pendulum', 2],
      ['visual', 3],
      [null, 1],
    ]);
    expect(body.by_work_status).toEqual([
      { work_status: 'completed', cases: 6 },
      { work_status: 'failed', cases: 1 },
    ]);
  });

  it('filters by type, inclusive dates (also cutting days at a date-time) and analyst', async () => {
    const remote = await client.get('/v1/history/analytics?type=remote_viewing', { token });
    expect(remote.body.total.cases).toBe(4);
    const days = await client.get('/v1/history/analytics?date_from=2026-03-03&date_to=2026-03-04', {
      token,
    });
    // 03-03 partial, 03-04 hit (23:30) and dowsing hit.
    expect(days.body.total).toMatchObject({ cases: 3, outcomes: { hit: 2, partial: 1 } });
    const cut = await client.get(
      '/v1/history/analytics?date_from=2026-03-02T12:00:00Z&date_to=2026-03-04T23:00:00Z',
      { token },
    );
    // The miss at 15:00 on 03-02, the partial, the dowsing hit at 08:00; not the 23:30 hit.
    expect(cut.body.total).toMatchObject({ cases: 3, outcomes: { hit: 1, partial: 1, miss: 1 } });
    const sameDay = await client.get(
      '/v1/history/analytics?date_from=2026-03-02T09:00:00Z&date_to=2026-03-02T11:00:00Z',
      { token },
    );
    expect(sameDay.body.total).toMatchObject({ cases: 1, outcomes: { hit: 1 } });
    const ana = await client.get('/v1/history/analytics?analyst_id=ana', { token });
    expect(ana.body.total).toMatchObject({ cases: 3, outcomes: { hit: 1, partial: 1, miss: 1 } });
    expectRate(ana.body.total.hit_rate, 1, 3, 0.25);
    const bob = await client.get(
      '/v1/history/analytics?analyst_id=bob&date_from=2026-03-04T12:00:00Z',
      {
        token,
      },
    );
    expect(bob.body.total).toMatchObject({ cases: 1, outcomes: { hit: 1 } });
  });

  it('stays right when verdicts change and cases go', async () => {
    const put = await client.put(`/v1/history/${ids[1]}/outcome`, {
      token,
      json: { verdict: 'hit', verified_by: 'Field team' },
    });
    expect(put.status).toBe(200);
    let body = (await client.get('/v1/history/analytics?type=remote_viewing', { token })).body;
    expect(body.total.outcomes).toEqual({ hit: 3, partial: 1, miss: 0, unverified: 0 });
    expectRate(body.total.hit_rate, 3, 4, 0.25);

    await sql.rows('DELETE FROM history_cases WHERE id = $1', [parsePublicId('history', ids[0]!)]);
    body = (await client.get('/v1/history/analytics?type=remote_viewing', { token })).body;
    expect(body.total.outcomes).toEqual({ hit: 2, partial: 1, miss: 0, unverified: 0 });
    expect(body.by_modality.find((m: { modality: string }) => m.modality === 'visual').cases).toBe(
      2,
    );
  });

  it('refuses bad parameters naming them, and needs analytics:read', async () => {
    for (const [query, field] of [
      ['type=sorcery', 'type'],
      ['date_from=yesterday', 'date_from'],
      ['date_from=2026-03-05&date_to=2026-03-01', 'date_to'],
      ['analyst_id=', 'analyst_id'],
      ['surprise=1', 'surprise'],
    ] as const) {
      const response = await client.get(`/v1/history/analytics?${query}`, { token });
      expect(response.status, query).toBe(400);
      expect(response.body.error.details.field, query).toBe(field);
    }
    const writer = await org.token([Scope.SessionsWrite]);
    expect((await client.get('/v1/history/analytics', { token: writer })).status).toBe(403);
    expect((await client.get('/v1/history/trends', { token: writer })).status).toBe(403);
  });
});

describe('rollups of finished work', () => {
  it('count a dowsing query’s case and forget it when the query is deleted', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const asked = await client.post('/v1/dowsing/query', {
      token,
      json: {
        query_type: 'yes_no',
        question: 'Is the key in the garden?',
      },
    });
    expect(asked.status).toBe(201);
    const before = (await client.get('/v1/history/analytics', { token })).body;
    expect(before.by_type).toEqual([
      expect.objectContaining({
        type: 'dowsing',
        cases: 1,
        outcomes: expect.objectContaining({ unverified: 1 }),
      }),
    ]);
    expect(
      (await client.delete(`/v1/dowsing/queries/${asked.body.query_id}`, { token })).status,
    ).toBe(204);
    const after = (await client.get('/v1/history/analytics', { token })).body;
    expect(after.total.cases).toBe(0);
    expect(after.by_type).toEqual([]);
  });
});

describe('rollups by day, week, month and all time', () => {
  // Cases either side of month and ISO-week ends (2026-01-31 is a Saturday, 2026-02-02 a Monday).
  const SPREAD: SeedCase[] = [
    { date: '2025-12-31T23:59:00Z', verdict: 'hit', analysts: ['cy'] },
    { date: '2026-01-01T00:00:00Z', verdict: 'miss', analysts: ['cy'] },
    { date: '2026-01-31T12:00:00Z', verdict: 'hit' },
    { date: '2026-02-01T12:00:00Z', verdict: 'partial', analysts: ['cy'] },
    { date: '2026-02-02T00:00:00Z' },
    { date: '2026-02-28T12:00:00Z', verdict: 'hit', analysts: ['cy'] },
    { date: '2026-03-01T00:30:00Z', verdict: 'miss' },
    { date: '2026-04-15T08:00:00Z', verdict: 'hit', analysts: ['cy'] },
  ];

  it('agree with one another whichever tiles a read takes, before and after a verdict changes', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token([Scope.AnalyticsRead]);
    const ids = await seed(org, SPREAD);
    const total = async (query: string) =>
      (await client.get(`/v1/history/analytics${query}`, { token })).body.total;
    const series = async (query: string) => {
      const response = await client.get(`/v1/history/trends${query}`, { token });
      expect(response.status).toBe(200);
      return response.body.buckets as {
        start: string;
        cases: number;
        verified: number;
        hit_rate: { successes: number } | null;
      }[];
    };
    const check = async (hits: number) => {
      const everything = await total('');
      expect(everything).toMatchObject({ cases: 8, outcomes: { unverified: 1 } });
      expect(everything.hit_rate.successes).toBe(hits);
      // Days of December, whole January to March, days of April.
      expect(await total('?date_from=2025-12-15&date_to=2026-04-20')).toEqual(everything);
      // A month's days only, then the cut days of a date-time range.
      expect((await total('?date_from=2026-02-01&date_to=2026-02-27')).cases).toBe(2);
      expect(
        (await total('?date_from=2026-01-31T06:00:00Z&date_to=2026-03-01T00:30:00Z')).cases,
      ).toBe(5);
      expect((await total('?analyst_id=cy')).cases).toBe(5);
      expect((await total('?analyst_id=cy&date_from=2026-01-01&date_to=2026-02-28')).cases).toBe(3);
      for (const [interval, expected] of [
        [
          'month',
          { '2025-12-01': 1, '2026-01-01': 2, '2026-02-01': 3, '2026-03-01': 1, '2026-04-01': 1 },
        ],
        [
          'week',
          { '2025-12-29': 2, '2026-01-26': 2, '2026-02-02': 1, '2026-02-23': 2, '2026-04-13': 1 },
        ],
      ] as const) {
        const buckets = await series(
          `?interval=${interval}&date_from=2025-12-20&date_to=2026-04-30`,
        );
        const counted = Object.fromEntries(
          buckets.filter((b) => b.cases > 0).map((b) => [b.start.slice(0, 10), b.cases]),
        );
        expect(counted, interval).toEqual(expected);
        const hitsCounted = buckets.reduce((sum, b) => sum + (b.hit_rate?.successes ?? 0), 0);
        expect(hitsCounted, interval).toBe(hits);
      }
    };
    await check(4);
    // The partial of 2026-02-01 becomes a hit: every grain's row moves with it.
    const admin = await org.token([Scope.AnalyticsAdmin]);
    const recorded = await client.put(`/v1/history/${ids[3]}/outcome`, {
      token: admin,
      json: { verdict: 'hit', verified_by: 'judge', verified_at: '2026-02-10T00:00:00Z' },
    });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
    await check(5);
  });
});

describe('GET /v1/history/trends', () => {
  let org: TestOrganization;
  let token: string;
  beforeAll(async () => {
    org = await createOrganization(stack, client);
    token = await org.token([Scope.AnalyticsRead]);
    await seed(org, FIXED);
  });

  it('is not taken for a case id: the route is its own', async () => {
    const response = await client.get(
      '/v1/history/trends?interval=day&date_from=2026-03-01&date_to=2026-03-07',
      {
        token,
      },
    );
    expect(response.status).toBe(200);
    expect(response.body.interval).toBe('day');
  });

  it('buckets counts, hit rates and mean confidence by day, with Mann–Kendall trends', async () => {
    const response = await client.get(
      '/v1/history/trends?interval=day&date_from=2026-03-01&date_to=2026-03-07',
      { token },
    );
    const buckets = response.body.buckets;
    expect(buckets.map((b: { start: string }) => b.start.slice(0, 10))).toEqual([
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
    ]);
    expect(buckets.map((b: { cases: number }) => b.cases)).toEqual([0, 2, 1, 2, 1, 1, 0]);
    expect(buckets.map((b: { verified: number }) => b.verified)).toEqual([0, 2, 1, 2, 0, 0, 0]);
    expect(buckets[0].hit_rate).toBeNull();
    expectRate(buckets[1].hit_rate, 1, 2, 0.25);
    expectRate(buckets[3].hit_rate, 2, 2, 0.375);
    expect(buckets.map((b: { mean_confidence: number | null }) => b.mean_confidence)).toEqual([
      null,
      0.6,
      0.6,
      0.7,
      0.2,
      null,
      null,
    ]);
    // Counts 0,2,1,2,1,1,0: S = Σ sgn over the 21 pairs = 5 − 4 + 0 − 3 − 1 − 1 = −4, 7 values: exact p.
    const cases = response.body.trends.cases;
    expect(cases).toMatchObject({
      method: 'mann_kendall',
      n: 7,
      s: -4,
      exact: true,
      direction: 'none',
    });
    // Hit rates 0.5, 0, 1 at days 1, 2, 3: S = −1 + 1 + 1 = 1.
    expect(response.body.trends.hit_rate).toMatchObject({ n: 3, s: 1 });
    expect(response.body.warning).toMatch(/bucket/);
  });

  it('refuses too many buckets naming interval, and bad intervals', async () => {
    const many = await client.get(
      '/v1/history/trends?interval=day&date_from=2020-01-01&date_to=2026-01-01',
      { token },
    );
    expect(many.status).toBe(400);
    expect(many.body.error.details.field).toBe('interval');
    const bad = await client.get('/v1/history/trends?interval=hour', { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('interval');
    const monthly = await client.get(
      '/v1/history/trends?interval=month&date_from=2026-01-01&date_to=2026-03-31',
      {
        token,
      },
    );
    expect(monthly.status).toBe(200);
    expect(monthly.body.buckets.map((b: { cases: number }) => b.cases)).toEqual([0, 0, 7]);
  });
});

describe('GET /v1/analytics/performance', () => {
  it('rates engines over recent work, analysts, types and modalities over the cases', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    await seed(org, FIXED);
    const asked = await client.post('/v1/dowsing/query', {
      token,
      json: { query_type: 'yes_no', question: 'Is the key in the garden?' },
    });
    expect(asked.status).toBe(201);
    const [dowsingCase] = await sql.rows<{ id: string; chance_baseline: number }>(
      'SELECT id, chance_baseline FROM history_cases WHERE source_id = $1',
      [parsePublicId('dowsing', asked.body.query_id)],
    );
    const verdict = await client.put(
      `/v1/history/${toPublicId('history', dowsingCase!.id)}/outcome`,
      {
        token,
        json: { verdict: 'hit', verified_by: 'Field team' },
      },
    );
    expect(verdict.status).toBe(200);

    const response = await client.get('/v1/analytics/performance', { token });
    expect(response.status).toBe(200);
    const [engine] = response.body.by_engine;
    expect(response.body.by_engine).toHaveLength(1);
    expect(engine).toMatchObject({
      kind: 'dowsing_query',
      engine: 'simulated',
      work: 1,
      failed: 0,
      accuracy: null,
      reliability: null,
      scores_note: expect.stringMatching(/SAIC/),
    });
    expectRate(engine.hit_rate, 1, 1, dowsingCase!.chance_baseline);
    expect(engine.processing_seconds.p50).toBeGreaterThanOrEqual(0);
    expect(engine.processing_seconds.p99).toBeGreaterThanOrEqual(engine.processing_seconds.p50);

    expect(response.body.by_analyst.map((a: { analyst_id: string }) => a.analyst_id)).toEqual([
      'ana',
      'bob',
    ]);
    const [ana, bob] = response.body.by_analyst;
    expect(ana).toMatchObject({
      cases: 3,
      outcomes: { hit: 1, partial: 1, miss: 1, unverified: 0 },
    });
    expectRate(ana.hit_rate, 1, 3, 0.25);
    expect(bob).toMatchObject({
      cases: 2,
      outcomes: { hit: 1, partial: 1, miss: 0, unverified: 0 },
    });
    expectRate(bob.hit_rate, 1, 2, 0.25);
    const dowsing = response.body.by_type.find((t: { type: string }) => t.type === 'dowsing');
    // The seeded hit (own baseline 0.5) and the query's verified hit.
    expectRate(dowsing.hit_rate, 2, 2, (0.5 + dowsingCase!.chance_baseline) / 2);
  });
});

describe('GET /v2/analytics/dashboard', () => {
  it('counts recent work, rates the last 30 days’ cases, and shows usage, webhooks and activity', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const asked = await client.post('/v1/dowsing/query', {
      token,
      json: { query_type: 'yes_no', question: 'Is the key in the shed?' },
    });
    expect(asked.status).toBe(201);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    const lastYear = new Date(Date.now() - 400 * 86_400_000).toISOString();
    await seed(org, [
      { date: yesterday, verdict: 'hit' },
      { date: yesterday, verdict: 'miss' },
      { date: yesterday, verdict: 'hit', classified: true },
      { date: lastYear, verdict: 'hit' },
    ]);

    const response = await client.get('/v2/analytics/dashboard', { token });
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body.work).toEqual([
      {
        kind: 'dowsing_query',
        status: 'completed',
        counts: { last_24h: 1, last_7d: 1, last_30d: 1 },
      },
    ]);
    const remote = body.success_rates.find((t: { type: string }) => t.type === 'remote_viewing');
    expect(remote).toMatchObject({ cases: 2, outcomes: { hit: 1, miss: 1 } });
    expectRate(remote.hit_rate, 1, 2, 0.25);
    expect(body.success_rates.find((t: { type: string }) => t.type === 'dowsing').cases).toBe(1);
    expect(body.usage.concurrent).toMatchObject({ sessions: 0, analyses: 0 });
    expect(body.usage.concurrent.limit).toBeGreaterThan(0);
    expect(body.usage.requests.map((r: { window: string }) => r.window)).toEqual([
      'minute',
      'hour',
      'day',
    ]);
    expect(body.usage.requests[0].limit).toBeGreaterThan(0);
    // The same work per 24 hours of the last 30 days: the query fell in the last period.
    const generated = Date.parse(body.generated_at);
    expect(body.work_per_day).toEqual([
      {
        start: new Date(generated - 86_400_000).toISOString(),
        kind: 'dowsing_query',
        status: 'completed',
        count: 1,
      },
    ]);
    expect(body.webhooks).toMatchObject({ endpoints: [], failing: [] });
    expect(body.webhooks.per_hour).toEqual(
      Array.from({ length: 24 }, (_, hour) => ({
        start: new Date(generated - (24 - hour) * 3_600_000).toISOString(),
        succeeded: 0,
        failed: 0,
        pending: 0,
      })),
    );
    expect(body.recent_activity.length).toBeGreaterThan(0);
    expect(body.recent_activity[0].event_id).toMatch(/^evt_/);
    expect(body.recent_activity.map((e: { type: string }) => e.type)).toContain(
      'dowsing.query_completed',
    );

    const other = await createOrganization(stack, client);
    const theirs = (await client.get('/v2/analytics/dashboard', { token: await other.token() }))
      .body;
    expect(theirs.work).toEqual([]);
    expect(theirs.work_per_day).toEqual([]);
    expect(theirs.success_rates).toEqual([]);
    expect(
      theirs.recent_activity.every(
        (e: { event_id: string }) =>
          !body.recent_activity.some((m: { event_id: string }) => m.event_id === e.event_id),
      ),
    ).toBe(true);
  });

  it('counts work per day and webhook deliveries per hour, summing to the windows’ figures', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    // Three dowsing queries: one now, one 3 days back, one 10 days back.
    const queries: string[] = [];
    for (const question of ['Is it here?', 'Is it there?', 'Is it anywhere?']) {
      const asked = await client.post('/v1/dowsing/query', {
        token,
        json: { query_type: 'yes_no', question },
      });
      expect(asked.status).toBe(201);
      queries.push(parsePublicId('dowsing', asked.body.query_id as string)!);
    }
    await backdateWork(sql, 'dowsing_queries', queries[1]!, 3);
    await backdateWork(sql, 'dowsing_queries', queries[2]!, 10);
    // A webhook no work of this test fires (its deliveries are seeded).
    const created = await client.post('/v1/webhooks', {
      token,
      json: { url: 'https://127.0.0.1:9/hook', events: ['analysis.completed'] },
    });
    expect(created.status, created.text).toBe(201);
    const webhook = parsePublicId('webhook', created.body.webhook_id as string)!;
    await seedDeliveries(sql, org.organizationId, webhook, [
      { hoursAgo: 0.5, state: 'succeeded' },
      { hoursAgo: 0.5, state: 'failed' },
      { hoursAgo: 0.5, state: 'pending' },
      { hoursAgo: 3.5, state: 'succeeded' },
      { hoursAgo: 3.5, state: 'succeeded' },
      { hoursAgo: 23.5, state: 'failed' },
      { hoursAgo: 30, state: 'succeeded' },
    ]);

    const body = (await client.get('/v2/analytics/dashboard', { token })).body;
    const generated = Date.parse(body.generated_at);
    const dayStart = (daysAgo: number) => new Date(generated - daysAgo * 86_400_000).toISOString();
    expect(body.work_per_day).toEqual([
      { start: dayStart(11), kind: 'dowsing_query', status: 'completed', count: 1 },
      { start: dayStart(4), kind: 'dowsing_query', status: 'completed', count: 1 },
      { start: dayStart(1), kind: 'dowsing_query', status: 'completed', count: 1 },
    ]);
    expect(body.work).toEqual([
      {
        kind: 'dowsing_query',
        status: 'completed',
        counts: { last_24h: 1, last_7d: 2, last_30d: 3 },
      },
    ]);

    const hours = body.webhooks.per_hour as Record<string, number | string>[];
    expect(hours).toHaveLength(24);
    const hour = (hoursAgo: number) => hours[24 - hoursAgo]!;
    expect(hour(1)).toMatchObject({ succeeded: 1, failed: 1, pending: 1 });
    expect(hour(4)).toMatchObject({ succeeded: 2, failed: 0, pending: 0 });
    expect(hour(24)).toMatchObject({ succeeded: 0, failed: 1, pending: 0 });
    expect(hour(24).start).toBe(new Date(generated - 24 * 3_600_000).toISOString());
    const sum = (state: string) => hours.reduce((total, h) => total + (h[state] as number), 0);
    // The hours hold the endpoint's figures of the last 24 hours, not the delivery of 30 hours ago.
    expect(body.webhooks.endpoints).toMatchObject([{ succeeded: 3, failed: 2, pending: 1 }]);
    expect([sum('succeeded'), sum('failed'), sum('pending')]).toEqual([3, 2, 1]);
  });
});
