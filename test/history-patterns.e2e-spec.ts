import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, Scope } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});
afterAll(async () => {
  await stack?.close();
});

/** Exact P(X ≥ k | n, p), summed term by term here, independently of the service's code. */
function binomialTail(k: number, n: number, p: number): number {
  let sum = 0;
  for (let j = k; j <= n; j++) {
    let choose = 1;
    for (let i = 1; i <= j; i++) choose = (choose * (n - j + i)) / i;
    sum += choose * p ** j * (1 - p) ** (n - j);
  }
  return sum;
}

interface SeedCase {
  date: string;
  descriptors?: string[];
  at?: [number, number];
  truth?: [number, number];
  verdict?: 'hit' | 'partial' | 'miss';
  classified?: boolean;
  type?: string;
}

async function seed(org: TestOrganization, cases: SeedCase[], mode = 'live'): Promise<void> {
  for (const c of cases) {
    const { uuid, id } = newKey('history');
    await sql.rows(
      `INSERT INTO history_cases (organization_id, mode, id, source_type, external_id, type, work_status,
         classified, date, target, descriptors, latitude, longitude, true_latitude, true_longitude,
         verdict, chance_baseline, verified_by, verified_at)
       VALUES ($1, $2, $3, 'import', $4, $5, 'completed', $6, $7, 'a target', $8, $9, $10, $11, $12,
               $13, $14, $15, $16)`,
      [
        org.organizationId,
        mode,
        uuid,
        `ext-${id}`,
        c.type ?? 'remote_viewing',
        c.classified ?? false,
        c.date,
        c.descriptors ?? [],
        c.at?.[0] ?? null,
        c.at?.[1] ?? null,
        c.truth?.[0] ?? null,
        c.truth?.[1] ?? null,
        c.verdict ?? null,
        c.verdict ? 0.25 : null,
        c.verdict ? 'test' : null,
        c.verdict ? c.date : null,
      ],
    );
  }
}

const LONDON: [number, number] = [51.5, -0.12];
const PARIS: [number, number] = [48.85, 2.35];
const BERLIN: [number, number] = [52.52, 13.4];
const MADRID: [number, number] = [40.4, -3.7];

/**
 * Ten cases, every one on a Monday of January at 10:xx UTC: four hits
 * (water, stone; London), four misses (metal; Paris, the last one verified
 * as really in Madrid), two unverified (water, metal; Berlin).
 */
const CASES: SeedCase[] = [
  ...[
    '2026-01-05T10:00:00Z',
    '2026-01-12T10:15:00Z',
    '2026-01-19T10:30:00Z',
    '2026-01-26T10:45:00Z',
  ].map((date): SeedCase => ({
    date,
    descriptors: ['Water ', 'stone'],
    at: LONDON,
    verdict: 'hit',
  })),
  ...['2025-01-06T10:00:00Z', '2025-01-13T10:00:00Z', '2025-01-20T10:00:00Z'].map(
    (date): SeedCase => ({ date, descriptors: ['metal'], at: PARIS, verdict: 'miss' }),
  ),
  {
    date: '2025-01-27T10:00:00Z',
    descriptors: ['metal'],
    at: PARIS,
    truth: MADRID,
    verdict: 'miss',
  },
  { date: '2024-01-01T10:00:00Z', descriptors: ['water', 'metal'], at: BERLIN },
  { date: '2024-01-08T10:00:00Z', descriptors: ['water', 'metal', 'water'], at: BERLIN },
];

describe('GET /v2/history/patterns', () => {
  let org: TestOrganization;
  let token: string;
  beforeAll(async () => {
    org = await createOrganization(stack, client);
    token = await org.token([Scope.AnalyticsRead]);
    await seed(org, [
      ...CASES,
      // Classified cases never count: this one would add a metal hit in London on a Tuesday in March.
      {
        date: '2026-03-03T15:00:00Z',
        descriptors: ['metal'],
        at: LONDON,
        verdict: 'hit',
        classified: true,
      },
    ]);
    // The other mode and another organisation: metal hits everywhere, never seen.
    const metalHits = Array.from({ length: 6 }, (_, i): SeedCase => ({
      date: `2026-02-0${i + 1}T20:00:00Z`,
      descriptors: ['metal'],
      at: PARIS,
      verdict: 'hit',
    }));
    await seed(org, metalHits, 'test');
    const other = await createOrganization(stack, client);
    await seed(other, metalHits);
  });

  it('gives shares, lifts against the hit rate, and Benjamini–Hochberg adjusted p-values', async () => {
    const response = await client.get('/v2/history/patterns?min_support=2', { token });
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body).toMatchObject({
      correction: 'benjamini-hochberg',
      significance_level: 0.05,
      min_support: 2,
      cases: 10,
      verified: 8,
      window: {
        limit: 20_000,
        bounded: false,
        first_date: '2024-01-01T10:00:00.000Z',
        last_date: '2026-01-26T10:45:00.000Z',
      },
    });
    // 4 hits of 8 against the recorded chance 0.25.
    expect(body.hit_rate).toMatchObject({ value: 0.5, successes: 4, n: 8, baseline: 0.25 });
    expect(body.hit_rate.p_value).toBeCloseTo(binomialTail(4, 8, 0.25), 12);

    // Descriptors: the organisation's hit rate is 4/8 = 0.5.
    // water: 4 of 4 verified are hits, p = 0.5⁴; stone the same; metal 0 of 4, p = 1.
    // BH over the family of 3: 0.0625·3/2 = 0.09375 for both (Holm would say 0.1875).
    const terms = Object.fromEntries(
      body.descriptors.patterns.map((p: { term: string }) => [p.term, p]),
    );
    expect(body.descriptors).toMatchObject({ distinct_terms: 3, family_size: 3 });
    expect(Object.keys(terms).sort()).toEqual(['metal', 'stone', 'water']);
    // 16 term mentions over 10 cases and 3 terms: a uniform pick lists each in 16/30 of the cases.
    expect(terms.water.share).toMatchObject({ value: 0.6, successes: 6, n: 10 });
    expect(terms.water.share.baseline).toBeCloseTo(16 / 30, 12);
    expect(terms.water.share.p_value).toBeCloseTo(binomialTail(6, 10, 16 / 30), 12);
    expect(terms.stone.share).toMatchObject({ successes: 4, n: 10 });
    expect(terms.metal.share).toMatchObject({ successes: 6, n: 10 });
    for (const term of ['water', 'stone']) {
      expect(terms[term].hits).toMatchObject({
        hit_rate: { value: 1, successes: 4, n: 4, baseline: 0.5, p_value: 0.0625 },
        lift: 2,
        share_of_hits: 1,
        share_of_verified: 0.5,
        p_adjusted: 0.09375,
        significant: false,
      });
    }
    expect(terms.metal.hits).toMatchObject({
      hit_rate: { value: 0, successes: 0, n: 4, p_value: 1 },
      lift: 0,
      share_of_hits: 0,
      share_of_verified: 0.5,
      p_adjusted: 1,
    });
    expect(body.descriptors.patterns.at(-1).term).toBe('metal');

    // Places on the 1° grid; the Madrid-verified miss counts in Madrid, not Paris.
    expect(body.places).toMatchObject({
      grid_degrees: 1,
      located: 10,
      cells_occupied: 4,
      family_size: 2,
    });
    const cells = body.places.patterns;
    expect(cells).toHaveLength(3); // Madrid has 1 case, below min_support
    expect(cells[0]).toMatchObject({
      cell: { south: 51, west: -1, north: 52, east: 0 },
      centroid: { latitude: 51.5, longitude: -0.12 },
      share: { successes: 4, n: 10, baseline: 0.25 },
      hits: {
        hit_rate: { successes: 4, n: 4, baseline: 0.5, p_value: 0.0625 },
        lift: 2,
        p_adjusted: 0.125,
        significant: false,
      },
    });
    expect(cells[1]).toMatchObject({
      cell: { south: 48, west: 2, north: 49, east: 3 },
      hits: { hit_rate: { successes: 0, n: 3 }, lift: 0, p_adjusted: 1 },
    });
    expect(cells[2]).toMatchObject({ cell: { south: 52, west: 13 }, hits: null });
    expect(cells[2].share.successes).toBe(2);

    // Times: all ten on a Monday, at 10 UTC, in January; one family of 43 buckets.
    const { times } = body;
    expect(times).toMatchObject({ time_zone: 'UTC', family_size: 43 });
    expect(times.weekday.map((b: { bucket: string }) => b.bucket)).toEqual([
      'monday',
      'tuesday',
      'wednesday',
      'thursday',
      'friday',
      'saturday',
      'sunday',
    ]);
    expect(times.hour).toHaveLength(24);
    expect(times.month).toHaveLength(12);
    const monday = times.weekday[0];
    const ten = times.hour[10];
    const january = times.month[0];
    const pMonday = binomialTail(10, 10, 0.142857);
    const pTen = binomialTail(10, 10, 0.041667);
    const pJanuary = binomialTail(10, 10, 0.084875); // 31 / 365.2425
    expect(monday.share).toMatchObject({ value: 1, successes: 10, n: 10, baseline: 0.142857 });
    expect(monday.lift).toBeCloseTo(7, 4);
    expect(january.share.baseline).toBe(0.084875);
    // BH, ascending: 10 h (rank 1), January (2), Monday (3), then 40 buckets at p = 1.
    expect(ten.p_adjusted / (43 * pTen)).toBeCloseTo(1, 9);
    expect(january.p_adjusted / ((43 * pJanuary) / 2)).toBeCloseTo(1, 9);
    expect(monday.p_adjusted / ((43 * pMonday) / 3)).toBeCloseTo(1, 9); // Holm: 41·p
    expect([monday.significant, ten.significant, january.significant]).toEqual([true, true, true]);
    expect(times.weekday[1]).toMatchObject({
      share: { successes: 0, p_value: 1 },
      lift: 0,
      p_adjusted: 1,
      significant: false,
    });

    expect(body.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('Only 8 verified cases'),
        expect.stringContaining('Only 10 cases'),
      ]),
    );
  });

  it('filters by date and type', async () => {
    const recent = await client.get('/v2/history/patterns?date_from=2026-01-01', { token });
    expect(recent.status).toBe(200);
    expect(recent.body).toMatchObject({ cases: 4, verified: 4 });
    expect(recent.body.warnings).toEqual(
      expect.arrayContaining([expect.stringContaining('All 4 verified cases are hits')]),
    );
    expect(recent.body.descriptors.family_size).toBe(0);

    const older = await client.get('/v2/history/patterns?date_to=2025-01-27', { token });
    expect(older.body.cases).toBe(6);
    const dowsing = await client.get('/v2/history/patterns?type=dowsing', { token });
    expect(dowsing.body).toMatchObject({ cases: 0, hit_rate: null });
    expect(dowsing.body.times).toMatchObject({ family_size: 0, weekday: [] });
    expect(dowsing.body.warnings).toContain('No cases match: there is nothing to look at.');
  });

  it('sees only the caller’s organisation and mode', async () => {
    const testMode = await client.get('/v2/history/patterns?min_support=2', {
      token: await org.apiKey([Scope.AnalyticsRead], 'test'),
    });
    expect(testMode.status).toBe(200);
    expect(testMode.body).toMatchObject({ cases: 6, verified: 6 });
    expect(testMode.body.descriptors.patterns.map((p: { term: string }) => p.term)).toEqual([
      'metal',
    ]);
    const stranger = await createOrganization(stack, client);
    const theirs = await client.get('/v2/history/patterns', { token: await stranger.token() });
    expect(theirs.body.cases).toBe(0);
  });

  it('refuses bad parameters naming them', async () => {
    for (const [query, field] of [
      ['min_support=0', 'min_support'],
      ['min_support=1.5', 'min_support'],
      ['grid_degrees=0.01', 'grid_degrees'],
      ['grid_degrees=abc', 'grid_degrees'],
      ['type=tarot', 'type'],
      ['date_from=yesterday', 'date_from'],
      ['date_from=2026-02-01&date_to=2026-01-01', 'date_to'],
    ] as const) {
      const response = await client.get(`/v2/history/patterns?${query}`, { token });
      expect(response.status, query).toBe(400);
      expect(response.body.error.details.field, query).toBe(field);
    }
  });

  it('needs analytics:read', async () => {
    const response = await client.get('/v2/history/patterns', {
      token: await org.token([Scope.SessionsRead]),
    });
    expect(response.status).toBe(403);
  });
});
