// History search at a million cases (see bench/README.md, "History search"): a new organisation
// seeded by plain SQL — the seed of `npm run db:seed-history`, imported from the built CLI — then
// every request below asked sequentially (one at a time, so each figure is one request's
// latency): 20 search combinations (p99 < 50 ms), case detail (p99 < 10 ms), similar cases and
// similarity search (p99 < 100 ms), then one import of 100,000 NDJSON rows (< 60 s).
//
// The reference in the same run: the same requests answered by the lib's own services
// (CaseSearchService, HistoryService, SimilarCasesService from dist/libs/history) in this process
// on a plain pg Pool — the service's statements, issued by the service's code, with no HTTP,
// Nest, authentication, validation or JSON around them. Their statements are recorded as they
// are issued; each combination's slowest is EXPLAIN (ANALYZE, BUFFERS)ed, and the three slowest
// combinations' plans are printed.

import { transactionOn } from './sql-on-pool.mjs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { TypeID } from 'typeid-js';
import { BENCH_LIMITS, assertUnthrottled } from './limits.mjs';
import { ownGcPauses, spanSince } from './own-gcs.mjs';

export const HISTORY_TARGETS_MS = { search: 50, detail: 10, similar: 100, analytics: 200 };
export const IMPORT_TARGET_S = 60;
const REQUEST_TIMEOUT_MS = 60_000;
const IMPORT_TIMEOUT_MS = 600_000;
const MODE = 'live';
/** Case ids the detail requests cycle through, and case ids of GET /v1/history/similar. */
const DETAIL_IDS = 200;
const SIMILAR_IDS = 20;
/** Plans printed: the slowest combinations by the API's p99. */
const EXPLAINED = 3;

/**
 * The search combinations: `v1` query strings (limit 20, the default) or `v2` ones (per_page 20)
 * with `page` > 1 reached by following next_cursor. The words come from the seed's vocabulary:
 * `tower` is a top-ranked noun (in 44 % of cases), `anemometer` the last description word (0.17 %), "old tower"
 * two top-ranked words side by side.
 */
export const SEARCHES = [
  { label: 'q: common word', v: 1, query: { q: 'tower' } },
  { label: 'q: rare word', v: 1, query: { q: 'anemometer' } },
  { label: 'q: quoted phrase', v: 1, query: { q: '"old tower"' } },
  { label: 'q: OR', v: 1, query: { q: 'lighthouse OR windmill' } },
  { label: 'q: negation', v: 1, query: { q: 'bridge -water' } },
  { label: 'q + type', v: 1, query: { q: 'bridge', type: 'dowsing' } },
  {
    label: 'q + dates (2 years)',
    v: 1,
    query: { q: 'lighthouse', date_from: '2020-01-01', date_to: '2021-12-31' },
  },
  { label: 'location (London, 25 km)', v: 1, query: { location: '51.5074,-0.1278,25' } },
  { label: 'location (Paris, 1,000 km)', v: 1, query: { location: '48.8566,2.3522,1000' } },
  { label: 'bbox (Paris region)', v: 1, query: { bbox: '48.5,1.8,49.2,2.9' } },
  { label: 'bbox across the antimeridian', v: 1, query: { bbox: '-19,177,-17,-179' } },
  {
    label: 'q + location + dates',
    v: 1,
    query: { q: 'tower', location: '40.7128,-74.006,50', date_from: '2022-01-01' },
  },
  { label: 'outcome=verified', v: 1, query: { outcome: 'verified' } },
  { label: 'type only', v: 1, query: { type: 'remote_viewing' } },
  { label: 'no filter', v: 1, query: {} },
  { label: 'offset 5,000 (no filter)', v: 1, query: { offset: '5000' } },
  { label: 'offset 9,900 (q: common word)', v: 1, query: { q: 'tower', offset: '9900' } },
  { label: 'v2 first page', v: 2, query: {} },
  { label: 'v2 10th page (next_cursor)', v: 2, query: {}, page: 10 },
  { label: 'v2 q: common word', v: 2, query: { q: 'tower' } },
];
const PER_PAGE = 20;

/** POST /v2/history/similarity-search bodies. */
const SIMILARITY_BODIES = [
  {
    label: 'similarity-search: text + descriptors',
    body: { text: 'Old tower near the river', descriptors: ['water', 'metal', 'tall'] },
  },
  {
    label: 'similarity-search: place + type',
    body: { coordinates: { latitude: 51.5074, longitude: -0.1278 }, type: 'dowsing', limit: 5 },
  },
  {
    label: 'similarity-search: everything',
    body: {
      text: 'Where is the rusty key?',
      descriptors: ['cold', 'echo', 'stone'],
      coordinates: { latitude: 35.6762, longitude: 139.6503 },
      date: '2024-06-01T00:00:00Z',
    },
  },
];

const r2 = (x) => (x === null || x === undefined ? null : Math.round(x * 100) / 100);

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  return {
    count: sorted.length,
    p50: r2(at(50)),
    p95: r2(at(95)),
    p99: r2(at(99)),
    max: r2(sorted.at(-1)),
  };
}

/** One request, timed to the last byte of its body; anything but `expect` throws. */
async function call(url, { method = 'GET', headers, body, expect = 200, timeout } = {}) {
  const started = performance.now();
  let response;
  let text;
  try {
    response = await fetch(url, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(timeout ?? REQUEST_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    throw new Error(
      `${method} ${url} failed (deadline ${(timeout ?? REQUEST_TIMEOUT_MS) / 1000} s)`,
      {
        cause: error,
      },
    );
  }
  const ms = performance.now() - started;
  if (expect !== null && response.status !== expect)
    throw new Error(`${method} ${url}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return { ms, status: response.status, text };
}

/**
 * A stand-in for the lib's `Sql` (rows only, which is all the search and similar services use)
 * on a plain pg Pool, recording each statement in the order it is issued and how long it took.
 * `reader` is `Sql.reader` without replicas: the same pool.
 */
function recordingSql(pool) {
  let log = null;
  return {
    record() {
      log = [];
    },
    take() {
      const taken = log;
      log = null;
      return taken;
    },
    async reader() {
      return this;
    },
    async query(text, parameters) {
      const entry = { text, parameters, ms: null };
      log?.push(entry);
      const started = performance.now();
      const result = await pool.query(text, parameters);
      entry.ms = performance.now() - started;
      return result;
    },
    async rows(text, parameters) {
      return (await this.query(text, parameters)).rows;
    },
    transaction: (work) =>
      transactionOn(pool, (client) =>
        work({
          query: (text, parameters) => client.query(text, parameters),
          rows: async (text, parameters) => (await client.query(text, parameters)).rows,
        }),
      ),
  };
}

/**
 * `warmup` untimed then `requests` timed runs of `once` (which returns its latency in ms), one
 * at a time. A slow request must not hold the bench for an hour: the warm-up ends after
 * WARMUP_BUDGET_MS, the timed runs after TIMED_BUDGET_MS once MIN_TIMED are in (the row's
 * count says how many).
 */
const WARMUP_BUDGET_MS = 10_000;
const TIMED_BUDGET_MS = 60_000;
const MIN_TIMED = 10;
async function timed(warmup, requests, once, ownGcs = null) {
  return (await timedInTurn(warmup, requests, [once], ownGcs))[0];
}

/**
 * As `timed`, for several ways of asking the same thing taking turns request by request (the
 * API, then the reference, then the API …), so that each meets the same cache and machine.
 */
async function timedInTurn(warmup, requests, onces, ownGcs = null) {
  const latencies = onces.map(() => []);
  const spans = onces.map(() => []);
  let i = 0;
  const warmupStart = performance.now();
  for (; i < warmup && performance.now() - warmupStart < WARMUP_BUDGET_MS; i++)
    for (const once of onces) await once(i);
  const timedStart = performance.now();
  const from = Date.now();
  for (let n = 0; n < requests; n++, i++) {
    if (n >= MIN_TIMED && performance.now() - timedStart > TIMED_BUDGET_MS) break;
    for (const [k, once] of onces.entries()) {
      const started = performance.now();
      latencies[k].push(await once(i));
      spans[k].push(spanSince(started));
    }
  }
  const window = { from, to: Date.now() };
  return latencies.map((list, k) => {
    const result = { ...percentiles(list), window };
    if (ownGcs) result.duringOwnGc = ownGcs.overlapping(spans[k]);
    if (list.length < requests) result.cutShort = `time budget of ${TIMED_BUDGET_MS / 1000} s`;
    return result;
  });
}

/** EXPLAIN (ANALYZE, BUFFERS) of one recorded statement: its plan text and times. */
async function explain(pool, statement) {
  const { rows } = await pool.query(
    `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
    statement.parameters,
  );
  const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
  const time = (name) => r2(Number(new RegExp(`${name} Time: ([\\d.]+) ms`).exec(plan)?.[1]));
  return { planningMs: time('Planning'), executionMs: time('Execution'), plan };
}

/** A statement in one line, its parameters shown, for the printed report. */
function oneLine(statement) {
  const parameters = statement.parameters.map((p) =>
    Array.isArray(p) ? `[${p.length} values]` : JSON.stringify(p),
  );
  return `${statement.text.replace(/\s+/g, ' ').trim()}  -- parameters: ${parameters.join(', ')}`;
}

/** 100,000 import rows as NDJSON: the seed's vocabulary and places, a fifth verified. */
function importBody(vocabulary, rows, runTag) {
  let state = 0x9e3779b9;
  const random = () => {
    // mulberry32: deterministic, so every run imports the same rows
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const zipf = (list) =>
    list[Math.min(list.length, Math.floor(Math.exp(random() * Math.log(list.length + 1)))) - 1];
  const words = [
    ...vocabulary.SEED_NOUNS,
    ...vocabulary.SEED_ADJECTIVES,
    ...vocabulary.SEED_DESCRIPTION_WORDS,
  ];
  const cities = vocabulary.SEED_CITIES;
  const types = ['remote_viewing', 'dowsing', 'analysis', 'automatic_writing'];
  const now = Date.now();
  const lines = [];
  for (let n = 1; n <= rows; n++) {
    const adjective = zipf(vocabulary.SEED_ADJECTIVES);
    const noun = zipf(vocabulary.SEED_NOUNS);
    const [, lat, lon, , sigma] = cities[Math.floor(random() * cities.length)];
    const gauss = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const latitude = Math.max(-90, Math.min(90, lat + (sigma / 111.32) * gauss));
    const row = {
      external_id: `bench-import-${runTag}-${n}`,
      type: types[Math.floor(random() * types.length)],
      date: new Date(now - random() * 10 * 365 * 86_400_000).toISOString(),
      target: `${adjective[0].toUpperCase()}${adjective.slice(1)} ${noun} near the ${zipf(vocabulary.SEED_NOUNS)}`,
      confidence_score: Math.round(random() * 1e4) / 1e4,
      location: { latitude, longitude: lon },
      analysts: [`analyst_${String(1 + Math.floor(random() * 60)).padStart(3, '0')}`],
      process: { duration_minutes: 10 + Math.floor(random() * 110), modality: 'visual' },
      results: {
        description: Array.from(
          { length: 4 },
          () => `${zipf(vocabulary.SEED_ADJECTIVES)} ${zipf(vocabulary.SEED_NOUNS)} ${zipf(words)}`,
        ).join(', '),
      },
      descriptors: [...new Set(Array.from({ length: 3 }, () => zipf(vocabulary.DESCRIPTORS)))],
    };
    if (random() < 0.2) {
      Object.assign(row, {
        verdict: 'hit',
        outcome: `Confirmed: the ${adjective} ${noun} found as described`,
        location_found: true,
        verified_by: 'verifier_01',
        verified_at: new Date(now - 86_400_000).toISOString(),
      });
    }
    lines.push(JSON.stringify(row));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Creates the organisation (made by the operator, with the bench's limits; its admin API key
 * asks everything), seeds `cases` history cases, measures every request, then the import.
 * `partial` gets each row as it is measured; a request that fails is recorded in its row and the
 * others still run; the phase then throws.
 */
export async function historyPhase({
  apiBase,
  operatorHeaders,
  db,
  databaseUrl,
  poolMax,
  root,
  cases,
  requests,
  warmup,
  importRows,
  referenceBase = null,
  apiFullGcs = null,
  log,
  partial = {},
}) {
  const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const [
    seed,
    vocabulary,
    engines,
    lib,
    mapper,
    analyticsLib,
    analyticsMapper,
    patternsDto,
    sessionsLib,
    analysesLib,
    dowsingLib,
    webhooksLib,
    eventsLib,
  ] = await Promise.all([
    dist('apps/cli/src/seeded-history.js'),
    dist('apps/cli/src/seeded-history-vocabulary.js'),
    dist('libs/engines/src/index.js'),
    dist('libs/history/src/index.js'),
    dist('apps/api/src/history/history.mapper.js'),
    dist('libs/analytics/src/index.js'),
    dist('apps/api/src/analytics/v1/history-analytics-v1.mapper.js'),
    dist('apps/api/src/history/v2/history-patterns.dto.js'),
    dist('libs/sessions/src/index.js'),
    dist('libs/analyses/src/index.js'),
    dist('libs/dowsing/src/index.js'),
    dist('libs/webhooks/src/index.js'),
    dist('libs/events/src/index.js'),
  ]);
  if (typeof seed.seedHistoryCases !== 'function' || typeof lib.CaseSearchService !== 'function')
    throw new Error(
      'history phase: dist has no seedHistoryCases or CaseSearchService (build first)',
    );

  const created = await call(`${apiBase}/v2/enterprise/organizations`, {
    method: 'POST',
    headers: { ...operatorHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'History search at a million cases', ...BENCH_LIMITS }),
    expect: 201,
  });
  const organization = JSON.parse(created.text);
  assertUnthrottled(organization, `history phase: organisation ${organization.id}`);
  const organizationUuid = TypeID.fromString(organization.id, 'org').toUUID();
  const tenant = { organizationId: organizationUuid, mode: MODE };
  const headers = { 'x-api-key': organization.admin_api_key };
  Object.assign(partial, {
    organization: organization.id,
    cases,
    requests,
    warmup,
    targetsMs: HISTORY_TARGETS_MS,
    importTargetS: IMPORT_TARGET_S,
    rows: [],
  });

  log(`history phase: seeding ${cases.toLocaleString('en')} cases into ${organization.id} …`);
  const seededAt = performance.now();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolMax });
  const sql = recordingSql(pool);
  await seed.seedHistoryCases(sql, tenant, { to: cases });
  partial.seedSeconds = Math.round((performance.now() - seededAt) / 100) / 10;
  const vacuumAt = performance.now();
  await db.query('VACUUM ANALYZE history_cases');
  partial.vacuumAnalyzeSeconds = Math.round((performance.now() - vacuumAt) / 100) / 10;
  log(
    `history phase: seeded in ${partial.seedSeconds} s, VACUUM ANALYZE ${partial.vacuumAnalyzeSeconds} s; ${warmup} untimed, then ${requests} timed requests each, one at a time (the API, then the lib directly) …`,
  );

  const caseRepository = new lib.HistoryCasesRepository(sql);
  const rollups = new lib.HistoryCaseRollupsRepository(sql);
  const search = new lib.CaseSearchService(sql, new lib.CaseSearchRepository(sql));
  const similar = new lib.SimilarCasesService(new lib.SimilarCasesRepository(sql));
  const history = new lib.HistoryService(sql, caseRepository, null);
  const failed = [];
  const rows = partial.rows;
  const ownGcs = ownGcPauses();

  /**
   * Measures one row: the API's requests (in turn with the reference server's, for a row that has
   * them), then the lib's, then the statements' own times.
   */
  const measure = async (row, { api, direct, check, referenceServer }) => {
    rows.push(row);
    try {
      const first = await api(0);
      const apiOnce = async (i) => (i === 0 ? first : await api(i)).ms;
      if (referenceServer) {
        const answered = await referenceServer(0);
        if (!isDeepStrictEqual(JSON.parse(answered.text), JSON.parse(first.text)))
          throw new Error(
            `the reference server answered otherwise than the API: ${answered.text.slice(0, 300)} against ${first.text.slice(0, 300)}`,
          );
        [row.api, row.reference] = await timedInTurn(
          warmup,
          requests,
          [apiOnce, async (i) => (await referenceServer(i)).ms],
          ownGcs,
        );
        row.ratioReference = r2(row.api.p99 / row.reference.p99);
      } else row.api = await timed(warmup, requests, apiOnce, ownGcs);
      if (apiFullGcs) row.apiFullGcs = apiFullGcs(row.api.window);
      row.met = row.api.p99 < HISTORY_TARGETS_MS[row.kind];
      const reference = await direct(0);
      check?.(first, reference.result);
      const statements = [];
      row.direct = await timed(warmup, requests, async (i) => {
        sql.record();
        const started = performance.now();
        await direct(i);
        const ms = performance.now() - started;
        sql.take().forEach((statement, index) => {
          (statements[index] ??= { ...statement, runs: [] }).runs.push(statement.ms);
        });
        return ms;
      });
      row.ratio = r2(row.api.p99 / row.direct.p99);
      row.ratioP50 = r2(row.api.p50 / row.direct.p50);
      row.statements = statements.map((s) => ({
        text: s.text,
        parameters: s.parameters,
        ms: percentiles(s.runs.slice(-row.direct.count)),
      }));
      log(
        `  ${row.label}: p50 ${row.api.p50} ms, p95 ${row.api.p95} ms, p99 ${row.api.p99} ms (the lib directly: p50 ${row.direct.p50} ms, p99 ${row.direct.p99} ms; API ÷ lib ×${row.ratioP50} at p50, ×${row.ratio} at p99) — ${row.met ? 'met' : 'NOT MET'}`,
      );
    } catch (error) {
      row.error = error.message;
      failed.push(`${row.label}: ${error.message}`);
      log(`  ${row.label} FAILED: ${error.message}`);
    }
  };

  try {
    // Searches.
    for (const spec of SEARCHES) {
      const { offset, ...filters } = spec.query;
      const params = new URLSearchParams(spec.query);
      if (spec.v === 2) params.set('per_page', String(PER_PAGE));
      const row = { kind: 'search', label: spec.label, version: spec.v, query: params.toString() };
      // Page `spec.page` of v2: follow next_cursor there once (untimed), then ask it repeatedly.
      let apiCursor = null;
      let libCursor = null;
      const filtersObject = () => mapper.filtersOf(filters);
      await measure(row, {
        api: async (i) => {
          if (spec.page > 1 && apiCursor === null) {
            for (let page = 1; page < spec.page; page++) {
              if (apiCursor) params.set('cursor', apiCursor);
              const { text } = await call(`${apiBase}/v2/history/search?${params}`, { headers });
              apiCursor = JSON.parse(text).pagination.next_cursor;
              if (!apiCursor) throw new Error(`no next_cursor after page ${page}`);
            }
            params.set('cursor', apiCursor);
            row.query = params.toString();
          }
          const answer = await call(`${apiBase}/v${spec.v}/history/search?${params}`, { headers });
          if (i === 0) {
            const body = JSON.parse(answer.text);
            row.total = spec.v === 1 ? body.total : body.pagination.total;
            row.totalEstimated =
              spec.v === 1 ? body.total_estimated : body.pagination.total_estimated;
            row.results = (spec.v === 1 ? body.results : body.data).length;
          }
          return answer;
        },
        direct: async () => {
          if (spec.v === 1)
            return {
              result: await search.search(tenant, filtersObject(), {
                limit: 20,
                offset: Number(offset ?? 0),
              }),
            };
          if (spec.page > 1 && libCursor === null) {
            for (let page = 1; page < spec.page; page++)
              libCursor = (await search.page(tenant, filtersObject(), libCursor, PER_PAGE)).next;
          }
          return { result: await search.page(tenant, filtersObject(), libCursor, PER_PAGE) };
        },
        check: (_answer, result) => {
          if (result.hits.length !== row.results)
            throw new Error(
              `the API answered ${row.results} results, the lib ${result.hits.length}`,
            );
          if (!row.totalEstimated && result.total !== row.total && spec.v === 1)
            throw new Error(`the API counted ${row.total} matches, the lib ${result.total}`);
        },
      });
    }

    // Analytics (issue 16): the rollups' reads, p99 < 200 ms.
    await db.query('VACUUM ANALYZE history_case_rollups, history_analyst_rollups');
    const readModels = [
      new sessionsLib.SessionReadModelRepository(sql),
      new analysesLib.AnalysisReadModelRepository(sql),
      new dowsingLib.DowsingReadModelRepository(sql),
    ];
    const analytics = new analyticsLib.HistoryAnalyticsService(
      sql,
      rollups,
      new lib.HistoryAnalystRollupsRepository(sql),
      new lib.HistoryReadModelRepository(sql),
      ...readModels,
    );
    const dashboard = new analyticsLib.DashboardService(
      sql,
      { get: async () => null },
      rollups,
      ...readModels,
      new webhooksLib.WebhookReadModelRepository(sql),
      new eventsLib.EventReadModelRepository(sql),
    );
    const {
      rows: [named],
    } = await db.query(
      `SELECT analysts[1] AS analyst FROM history_cases
        WHERE organization_id = $1 AND mode = $2 AND cardinality(analysts) > 0 LIMIT 1`,
      [organizationUuid, MODE],
    );
    const ANALYTICS = [
      { label: 'analytics: no filter', path: '/v1/history/analytics', query: {} },
      {
        label: 'analytics: type + dates (2 years)',
        path: '/v1/history/analytics',
        query: { type: 'remote_viewing', date_from: '2024-01-01', date_to: '2025-12-31' },
      },
      {
        label: 'analytics: date-times (cut days)',
        path: '/v1/history/analytics',
        query: { date_from: '2024-03-01T12:00:00Z', date_to: '2025-03-01T12:00:00Z' },
      },
      ...(named?.analyst
        ? [
            {
              label: 'analytics: analyst_id',
              path: '/v1/history/analytics',
              query: { analyst_id: named.analyst },
            },
          ]
        : []),
      {
        label: 'trends: month (24 months)',
        path: '/v1/history/trends',
        query: { interval: 'month' },
      },
      {
        label: 'trends: day (1 year)',
        path: '/v1/history/trends',
        query: { interval: 'day', date_from: '2025-01-01', date_to: '2025-12-31' },
      },
      {
        label: 'trends: week (all time)',
        path: '/v1/history/trends',
        query: { interval: 'week', date_from: '2010-01-01' },
      },
      ...(named?.analyst
        ? [
            {
              label: 'trends: week (all time) + analyst_id',
              path: '/v1/history/trends',
              query: { interval: 'week', date_from: '2010-01-01', analyst_id: named.analyst },
            },
          ]
        : []),
    ];
    for (const spec of ANALYTICS) {
      const params = new URLSearchParams(spec.query);
      await measure(
        { kind: 'analytics', label: spec.label, query: params.toString() },
        {
          api: () => call(`${apiBase}${spec.path}?${params}`, { headers }),
          direct: async () => {
            const filters = analyticsMapper.caseFiltersOf(spec.query);
            return {
              result:
                spec.path === '/v1/history/trends'
                  ? await analytics.trends(tenant, filters, spec.query.interval)
                  : await analytics.summary(tenant, filters),
            };
          },
        },
      );
    }
    await measure(
      { kind: 'analytics', label: 'performance (v1)' },
      {
        api: () => call(`${apiBase}/v1/analytics/performance`, { headers }),
        direct: async () => ({ result: await analytics.performance(tenant) }),
      },
    );
    const patterns = new lib.HistoryPatternsService(sql, new lib.HistoryPatternsRepository(sql));
    for (const spec of [
      { label: 'patterns (v2): newest window', query: {} },
      {
        label: 'patterns (v2): type + dates',
        query: { type: 'dowsing', date_from: '2020-01-01', date_to: '2021-12-31' },
      },
      { label: 'patterns (v2): 0.1° grid', query: { grid_degrees: '0.1' } },
    ]) {
      const params = new URLSearchParams(spec.query);
      const filters = analyticsMapper.caseFiltersOf(spec.query);
      await measure(
        { kind: 'analytics', label: spec.label, query: params.toString() },
        {
          api: () => call(`${apiBase}/v2/history/patterns?${params}`, { headers }),
          direct: async () => ({
            result: await patterns.patterns(tenant, {
              type: filters.type,
              dateFrom: filters.dateFrom,
              dateBefore: filters.dateBefore,
              minSupport: patternsDto.DEFAULT_MIN_SUPPORT,
              gridDegrees: Number(spec.query.grid_degrees ?? patternsDto.DEFAULT_GRID_DEGREES),
            }),
          }),
        },
      );
    }
    await measure(
      { kind: 'analytics', label: 'dashboard (v2)' },
      {
        api: () => call(`${apiBase}/v2/analytics/dashboard`, { headers }),
        direct: async () => ({ result: await dashboard.of(tenant) }),
      },
    );

    // Case detail: a different case each request.
    const { rows: sample } = await db.query(
      `SELECT id FROM history_cases WHERE organization_id = $1 AND mode = $2
        ORDER BY md5(id::text) LIMIT ${DETAIL_IDS}`,
      [organizationUuid, MODE],
    );
    const publicIds = sample.map(({ id }) => TypeID.fromUUID('hist', id).toString());
    await measure(
      { kind: 'detail', label: `case detail (${publicIds.length} cases in turn)` },
      {
        api: (i) => call(`${apiBase}/v1/history/${publicIds[i % publicIds.length]}`, { headers }),
        referenceServer:
          referenceBase &&
          ((i) =>
            call(`${referenceBase}/v1/history/${publicIds[i % publicIds.length]}`, { headers })),
        direct: async (i) => ({
          result: await history.get(tenant, publicIds[i % publicIds.length]),
        }),
      },
    );

    // Similar cases of located, unclassified cases; then similarity search.
    const { rows: probes } = await db.query(
      `SELECT id FROM history_cases WHERE organization_id = $1 AND mode = $2 AND NOT classified
          AND latitude IS NOT NULL AND cardinality(descriptors) > 0
        ORDER BY md5(id::text) LIMIT ${SIMILAR_IDS}`,
      [organizationUuid, MODE],
    );
    const probeIds = probes.map(({ id }) => TypeID.fromUUID('hist', id).toString());
    await measure(
      { kind: 'similar', label: `similar cases (v1, ${probeIds.length} cases in turn)` },
      {
        api: (i) =>
          call(`${apiBase}/v1/history/similar?case_id=${probeIds[i % probeIds.length]}`, {
            headers,
          }),
        direct: async (i) => {
          const record = await history.get(tenant, probeIds[i % probeIds.length]);
          return {
            result: await similar.find(
              tenant,
              {
                text: record.target,
                ...lib.sideOf(record),
                type: null,
                excludeId: record.id,
              },
              10,
            ),
          };
        },
      },
    );
    for (const { label, body } of SIMILARITY_BODIES) {
      const json = JSON.stringify(body);
      await measure(
        { kind: 'similar', label, body },
        {
          api: (_i) =>
            call(`${apiBase}/v2/history/similarity-search`, {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: json,
            }),
          direct: async () => ({
            result: await similar.find(
              tenant,
              {
                text: body.text ?? null,
                descriptors: body.descriptors ?? [],
                point: body.coordinates ?? null,
                date: body.date ? new Date(body.date) : null,
                type: body.type ?? null,
                excludeId: null,
              },
              body.limit ?? 10,
            ),
          }),
        },
      );
    }

    // Where the time goes: every row's slowest statement, EXPLAIN ANALYZEd (three printed).
    log("history phase: each request's slowest statement, EXPLAIN (ANALYZE, BUFFERS) …");
    for (const row of rows.filter((r) => r.statements?.length)) {
      const slowest = row.statements.reduce((a, b) => (b.ms.p50 > a.ms.p50 ? b : a));
      try {
        row.slowestStatement = {
          index: row.statements.indexOf(slowest),
          sql: oneLine(slowest),
          ms: slowest.ms,
          ...(await explain(pool, slowest)),
        };
      } catch (error) {
        row.slowestStatement = { sql: oneLine(slowest), error: error.message };
      }
    }

    // Import.
    partial.import = await importPhase({ apiBase, headers, vocabulary, engines, importRows, log });
    if (partial.import.imported !== undefined) {
      const {
        rows: [{ count }],
      } = await db.query(
        `SELECT count(*)::int AS count FROM history_cases
          WHERE organization_id = $1 AND mode = $2 AND external_id LIKE $3`,
        [organizationUuid, MODE, `bench-import-${partial.import.runTag}-%`],
      );
      partial.import.rowsInTable = count;
      if (count !== importRows) failed.push(`import: ${count} of ${importRows} rows in the table`);
    }
  } finally {
    ownGcs.stop();
    await pool.end();
  }
  if (failed.length > 0)
    throw new Error(`history phase: ${failed.length} failed: ${failed.join('; ')}`);
  return partial;
}

/** POST /v2/history/import with `rows` NDJSON rows, once; "not measured" when there is no such route. */
async function importPhase({ apiBase, headers, vocabulary, engines, importRows, log }) {
  if (importRows === 0) return { measured: false, reason: 'BENCH_HISTORY_IMPORT_ROWS=0' };
  const runTag = Date.now().toString(36);
  const body = importBody(
    { ...vocabulary, DESCRIPTORS: engines.DESCRIPTOR_TERMS },
    importRows,
    runTag,
  );
  const bytes = Buffer.byteLength(body);
  log(
    `history phase: importing ${importRows.toLocaleString('en')} NDJSON rows (${(bytes / 1024 ** 2).toFixed(1)} MB) …`,
  );
  const answer = await call(`${apiBase}/v2/history/import`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/x-ndjson' },
    body,
    expect: null,
    timeout: IMPORT_TIMEOUT_MS,
  });
  if (answer.status === 404 || answer.status === 405)
    return {
      measured: false,
      reason: `POST /v2/history/import answered ${answer.status}: no import endpoint in this build`,
    };
  if (answer.status < 200 || answer.status > 299)
    throw new Error(`POST /v2/history/import: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
  const report = JSON.parse(answer.text);
  const counts = report.report ?? report.data ?? report;
  const result = {
    measured: true,
    runTag,
    rows: importRows,
    bytes,
    status: answer.status,
    seconds: r2(answer.ms / 1000),
    rowsPerSecond: Math.round(importRows / (answer.ms / 1000)),
    imported: counts.imported,
    updated: counts.updated,
    failed: counts.failed,
    firstErrors: (counts.errors ?? []).slice(0, 5),
  };
  result.met = result.seconds < IMPORT_TARGET_S && counts.imported === importRows;
  log(
    `  import: ${result.seconds} s (${result.rowsPerSecond.toLocaleString('en')} rows/s), imported ${counts.imported}, updated ${counts.updated}, failed ${counts.failed} — ${result.met ? 'met' : 'NOT MET'}`,
  );
  return result;
}

const fmt = (n, digits = 1) =>
  n === null || n === undefined
    ? '-'
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const times = (ratio) => (ratio === undefined || ratio === null ? '-' : `×${fmt(ratio, 2)}`);

export function historyLines(r) {
  const lines = [];
  if (!r.cases) return lines;
  const t = r.targetsMs ?? HISTORY_TARGETS_MS;
  lines.push(
    `History on ${r.cases.toLocaleString('en')} cases of one organisation (${r.organization}; seeded in ${r.seedSeconds ?? '-'} s, VACUUM ANALYZE ${r.vacuumAnalyzeSeconds ?? '-'} s); ${r.requests} sequential requests each after ${r.warmup} untimed; targets p99 < ${t.search} ms (search), < ${t.detail} ms (detail), < ${t.similar} ms (similar). "lib" is the same request answered by the lib's services on a pg Pool in the bench process (the service's statements, no HTTP): its p50 and p99, and the API's ÷ the lib's.`,
    `  ${'request'.padEnd(36)}${'total'.padStart(10)}${'count'.padStart(7)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}${'target'.padStart(8)}  met${'lib p50'.padStart(9)}${'lib p99'.padStart(9)}${'÷ p50'.padStart(7)}${'÷ p99'.padStart(7)}${'GCs'.padStart(5)}${'own'.padStart(5)}  stmts  slowest (p50 ms)`,
  );
  for (const row of r.rows ?? []) {
    if (row.error && !row.api) {
      lines.push(`  ${row.label.padEnd(36)}  FAILED: ${row.error}`);
      continue;
    }
    const a = row.api;
    const total =
      row.total === undefined ? '' : `${fmt(row.total, 0)}${row.totalEstimated ? '~' : ''}`;
    const slowest = row.statements?.length
      ? row.statements.reduce((x, y) => (y.ms.p50 > x.ms.p50 ? y : x))
      : null;
    lines.push(
      `  ${row.label.padEnd(36)}${total.padStart(10)}${String(a.count).padStart(7)}${fmt(a.p50).padStart(9)}${fmt(a.p95).padStart(9)}${fmt(a.p99).padStart(9)}${fmt(a.max).padStart(9)}${`< ${t[row.kind]}`.padStart(8)}  ${row.met ? 'yes' : 'NO '}${fmt(row.direct?.p50).padStart(9)}${fmt(row.direct?.p99).padStart(9)}${times(row.ratioP50).padStart(7)}${times(row.ratio).padStart(7)}${String(row.apiFullGcs?.count ?? '-').padStart(5)}${String(a.duringOwnGc ?? '-').padStart(5)}  ${String(row.statements?.length ?? '-').padStart(5)}  ${slowest ? `#${row.statements.indexOf(slowest) + 1} ${fmt(slowest.ms.p50, 2)}` : '-'}${row.error ? `  FAILED: ${row.error}` : ''}`,
    );
  }
  if (r.rows?.some((row) => row.api?.cutShort || row.direct?.cutShort))
    lines.push(
      '  (a count under the requests asked: that row was slow, and its timed requests stopped after 60 s)',
    );
  if (r.rows?.some((row) => row.apiFullGcs))
    lines.push(
      `  (GCs: the API's full garbage collections during the row's timed requests${r.rows.some((row) => row.apiFullGcs?.count) ? `, the longest a pause of ${fmt(Math.max(...r.rows.map((row) => row.apiFullGcs?.longestPauseMs ?? 0)), 1)} ms` : ''}; on two cores their concurrent marking slows the requests around them too. own: timed requests during which the bench process itself paused for a garbage collection, which their latency includes)`,
    );
  for (const row of (r.rows ?? []).filter((row) => row.reference))
    lines.push(
      `  ${row.label} on the reference server (node:http, pg and ioredis: the same key lookup, request limits, statement and JSON), asked in turn with the API: p50 ${fmt(row.reference.p50)} ms, p95 ${fmt(row.reference.p95)} ms, p99 ${fmt(row.reference.p99)} ms, max ${fmt(row.reference.max)} ms; the API's p99 ÷ the reference's ×${row.ratioReference}`,
    );
  if (r.rows?.some((row) => row.totalEstimated))
    lines.push('  (~: total is the planner’s estimate, as the API reports past 1,000 matches)');
  const imp = r.import;
  if (imp)
    lines.push(
      imp.measured
        ? `  import of ${imp.rows.toLocaleString('en')} NDJSON rows (${fmt(imp.bytes / 1024 ** 2)} MB): ${fmt(imp.seconds, 2)} s, ${imp.rowsPerSecond.toLocaleString('en')} rows/s; imported ${imp.imported}, updated ${imp.updated}, failed ${imp.failed}${imp.rowsInTable === undefined ? '' : `, ${imp.rowsInTable} in the table`}; target < ${r.importTargetS} s — ${imp.met ? 'met' : 'NOT MET'}${imp.firstErrors?.length ? `; first errors: ${JSON.stringify(imp.firstErrors)}` : ''}`
        : `  import: not measured (${imp.reason})`,
    );
  const slowest = (r.rows ?? [])
    .filter((row) => row.api && row.slowestStatement)
    .sort((a, b) => b.api.p99 - a.api.p99)
    .slice(0, EXPLAINED);
  for (const row of slowest) {
    const s = row.slowestStatement;
    lines.push(
      '',
      `  ${row.label} (p99 ${fmt(row.api.p99)} ms): its slowest statement, #${s.index + 1} of ${row.statements.length} (p50 ${fmt(s.ms?.p50, 2)} ms, p99 ${fmt(s.ms?.p99, 2)} ms from the bench):`,
      `    ${s.sql}`,
      s.error
        ? `    EXPLAIN failed: ${s.error}`
        : `    EXPLAIN (ANALYZE, BUFFERS): planning ${fmt(s.planningMs, 2)} ms, execution ${fmt(s.executionMs, 2)} ms`,
      ...(s.plan ?? '').split('\n').map((line) => `    ${line}`),
    );
  }
  return lines;
}
