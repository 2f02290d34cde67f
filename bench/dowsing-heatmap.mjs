// POST /v2/dowsing/heatmap over a million stored readings (see bench/README.md, "Dowsing
// heatmaps"): a new organisation seeded by plain SQL — readings clustered around twelve German
// cities over a uniform background, confidence in 0..1, created_at over the past year — then
// each box asked sequentially (one request at a time, so each figure is one request's latency),
// at the finest cell size the 10,000-cell limit allows. Target: p99 under 200 ms for every box.
// Then, for every box, where the time goes: the service's own statement (storedCellsSql from the
// built lib, for the same grid) timed from here and EXPLAIN ANALYZEd.

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { TypeID } from 'typeid-js';
import { BENCH_LIMITS, assertUnthrottled } from './limits.mjs';

export const HEATMAP_P99_TARGET_MS = 200;
const REQUEST_TIMEOUT_MS = 60_000;
const SEED_BATCH = 100_000;
/** The notional queries the readings belong to (the stored heatmap reads no dowsing_queries). */
const QUERIES = 5_000;
const MODE = 'live';

/** The region every reading lies in (clamped): Germany, about 850 × 640 km. */
export const REGION = { south: 47.3, west: 5.9, north: 55.0, east: 15.0 };

/**
 * Where readings gather: a city each, its share of all readings and a Gaussian spread (σ, km).
 * The rest (27 %) lie uniformly over REGION.
 */
const CITIES = [
  ['Berlin', 52.52, 13.405, 0.14, 12],
  ['Hamburg', 53.551, 9.994, 0.09, 10],
  ['Munich', 48.137, 11.575, 0.09, 10],
  ['Cologne', 50.938, 6.96, 0.07, 8],
  ['Frankfurt', 50.11, 8.682, 0.07, 8],
  ['Stuttgart', 48.776, 9.183, 0.05, 7],
  ['Düsseldorf', 51.227, 6.773, 0.04, 6],
  ['Leipzig', 51.34, 12.375, 0.04, 6],
  ['Dresden', 51.05, 13.738, 0.04, 6],
  ['Hanover', 52.375, 9.732, 0.04, 6],
  ['Nuremberg', 49.452, 11.077, 0.03, 5],
  ['Bremen', 53.079, 8.802, 0.03, 5],
];

/** The boxes asked, each at the finest cell size whose grid has at most 10,000 cells. */
const BOXES = [
  { label: 'region (all readings)', bounds: REGION },
  {
    label: 'region, GeoJSON',
    bounds: REGION,
    accept: 'application/geo+json',
  },
  {
    label: 'city (Berlin, 38 × 45 km)',
    bounds: { south: 52.34, west: 13.09, north: 52.68, east: 13.76 },
  },
  {
    label: 'small (Berlin Mitte, 2 × 2 km)',
    bounds: { south: 52.511, west: 13.39, north: 52.529, east: 13.42 },
  },
];

/**
 * `count` readings of one organisation, by plain SQL: for reading g, a city by its share (or the
 * background), a Gaussian offset (Box–Muller) around it, clamped to REGION; confidence u² (most
 * low, as calibrated chance answers are); created_at uniform over the past year; the query it
 * belongs to g / (count / QUERIES). setseed makes the same rows every run (one connection, no
 * parallel workers on an INSERT). Batches of SEED_BATCH keep each statement's trigger work (the
 * tiles it adds) bounded.
 */
export async function seedReadings(db, organizationUuid, count) {
  let low = 0;
  const cities = CITIES.map(([, lat, lon, share, sigma]) => {
    const row = [lat, lon, sigma, low, low + share];
    low += share;
    return `(${row.join(', ')})`;
  }).join(',\n           ');
  const perQuery = Math.max(1, Math.ceil(count / QUERIES));
  const insert = `WITH cities(lat, lon, sigma_km, lo, hi) AS (
    VALUES ${cities}
  ), draws AS (
    SELECT g, random() AS pick, sqrt(-2 * ln(1 - random())) AS radius,
           2 * pi() * random() AS angle, random() AS u, random() AS v, random() AS c, random() AS t
      FROM generate_series($2::int, $3::int - 1) AS g
  )
  INSERT INTO dowsing_readings (organization_id, mode, query_id, latitude, longitude, confidence, created_at)
  SELECT $1::uuid, '${MODE}', md5($1::text || ':' || (d.g / ${perQuery}))::uuid,
         least(${REGION.north}, greatest(${REGION.south}, CASE WHEN c.lat IS NULL
              THEN ${REGION.south} + d.u * ${REGION.north - REGION.south}
              ELSE c.lat + c.sigma_km / 111.32 * d.radius * sin(d.angle) END)),
         least(${REGION.east}, greatest(${REGION.west}, CASE WHEN c.lat IS NULL
              THEN ${REGION.west} + d.v * ${REGION.east - REGION.west}
              ELSE c.lon + c.sigma_km / (111.32 * cos(radians(c.lat))) * d.radius * cos(d.angle) END)),
         d.c * d.c,
         now() - d.t * interval '365 days'
    FROM draws d LEFT JOIN cities c ON d.pick >= c.lo AND d.pick < c.hi`;
  await db.query('SELECT setseed(0.4242)');
  for (let from = 0; from < count; from += SEED_BATCH)
    await db.query(insert, [organizationUuid, from, Math.min(count, from + SEED_BATCH)]);
  const tiles = (await db.query("SELECT to_regclass('dowsing_reading_tiles') IS NOT NULL AS t"))
    .rows[0].t;
  await db.query(`ANALYZE dowsing_readings${tiles ? ', dowsing_reading_tiles' : ''}`);
}

/** The finest tile level whose grid over `bounds` has at most MAX_HEATMAP_CELLS cells. */
function finestLevel(lib, bounds) {
  let best = null;
  for (let level = 0; level <= lib.MAX_TILE_LEVEL; level++)
    if (lib.heatmapGrid(bounds, level).cells <= lib.MAX_HEATMAP_CELLS) best = level;
  return best;
}

async function post(url, headers, body) {
  const started = performance.now();
  let response;
  let text;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    throw new Error(`POST ${url} failed (deadline ${REQUEST_TIMEOUT_MS / 1000} s)`, {
      cause: error,
    });
  }
  const ms = performance.now() - started;
  if (response.status !== 200)
    throw new Error(`POST ${url}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return { ms, text, type: response.headers.get('content-type') ?? '' };
}

const r2 = (x) => (x === null || x === undefined ? null : Math.round(x * 100) / 100);

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  return {
    p50: r2(at(50)),
    p95: r2(at(95)),
    p99: r2(at(99)),
    max: r2(sorted.at(-1)),
    min: r2(sorted[0]),
  };
}
const median = (values) => percentiles(values).p50;

/**
 * The service's statement for a box (HeatmapService.stored: storedCellsSql of its grid, in a
 * transaction with SET LOCAL jit = off), timed from here (`repetitions` runs, median: PostgreSQL
 * plus transfer and row parsing) and EXPLAIN (ANALYZE, BUFFERS)ed once: planning and execution
 * time, and per relation the rows its scans returned and their time.
 */
export async function heatmapExplain(db, lib, tenant, bounds, cellSizeMeters, repetitions = 5) {
  const grid = lib.heatmapGrid(bounds, lib.levelForCellSize(cellSizeMeters));
  const { text, parameters } = lib.storedCellsSql(tenant, grid);
  const inTransaction = async (work) => {
    await db.query('BEGIN');
    try {
      await db.query('SET LOCAL jit = off');
      return await work();
    } finally {
      await db.query('COMMIT');
    }
  };
  const runs = [];
  let rows = 0;
  for (let i = 0; i < repetitions + 1; i++) {
    const started = performance.now();
    const result = await inTransaction(() => db.query(text, parameters));
    if (i > 0) runs.push(performance.now() - started);
    rows = result.rowCount;
  }
  const [
    {
      'QUERY PLAN': [plan],
    },
  ] = (
    await inTransaction(() =>
      db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, parameters),
    )
  ).rows;
  const textPlan = (
    await inTransaction(() => db.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, parameters))
  ).rows
    .map((row) => row['QUERY PLAN'])
    .join('\n');
  // Per relation: scans, rows returned and the scans' own time (actual total × loops).
  const relations = {};
  const scans = (node) => {
    if (node['Relation Name']) {
      const entry = (relations[node['Relation Name']] ??= { scans: 0, rows: 0, ms: 0 });
      entry.scans += 1;
      entry.rows += node['Actual Rows'] * node['Actual Loops'];
      entry.ms += node['Actual Total Time'] * node['Actual Loops'];
    }
    for (const child of node.Plans ?? []) scans(child);
  };
  scans(plan.Plan);
  for (const entry of Object.values(relations)) entry.ms = r2(entry.ms);
  // Each kind of node's own time (its total less its inputs'), summed: where execution goes.
  const own = new Map();
  const walk = (node) => {
    const total = node['Actual Total Time'] * node['Actual Loops'];
    const inputs = (node.Plans ?? []).reduce(
      (sum, child) => sum + child['Actual Total Time'] * child['Actual Loops'],
      0,
    );
    const name = [
      node['Strategy'] ? `${node['Node Type']} (${node['Strategy']})` : node['Node Type'],
      node['Index Name'] && `using ${node['Index Name']}`,
      node['Relation Name'] && `on ${node['Relation Name']}`,
    ]
      .filter(Boolean)
      .join(' ');
    const entry = own.get(name) ?? { node: name, count: 0, rows: 0, ms: 0 };
    entry.count += 1;
    entry.rows += node['Actual Rows'] * node['Actual Loops'];
    entry.ms += Math.max(0, total - inputs);
    own.set(name, entry);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan.Plan);
  const nodes = [...own.values()]
    .sort((a, b) => b.ms - a.ms)
    .map((entry) => ({ ...entry, ms: r2(entry.ms) }));
  return {
    level: grid.level,
    statementBytes: Buffer.byteLength(text),
    parameters: parameters.length,
    resultRows: rows,
    statementMs: median(runs),
    planningMs: r2(plan['Planning Time']),
    executionMs: r2(plan['Execution Time']),
    relations,
    nodes,
    plan: textPlan,
  };
}

export async function heatmapPhase({
  apiBase,
  operatorHeaders,
  db,
  root,
  readings,
  requests,
  warmup,
  log,
  partial = {},
}) {
  const lib = await import(pathToFileURL(join(root, 'dist/libs/dowsing/src/index.js')).href);
  if (typeof lib.storedCellsSql !== 'function')
    throw new Error('heatmap phase: dist/libs/dowsing has no storedCellsSql (build first)');
  const created = await fetch(`${apiBase}/v2/enterprise/organizations`, {
    method: 'POST',
    headers: { ...operatorHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Dowsing heatmaps at a million readings', ...BENCH_LIMITS }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  }).catch((error) => {
    throw new Error('heatmap phase: creating its organisation failed', { cause: error });
  });
  const createdText = await created.text();
  if (created.status !== 201)
    throw new Error(
      `heatmap phase: organisation: HTTP ${created.status} ${createdText.slice(0, 300)}`,
    );
  const organization = JSON.parse(createdText);
  assertUnthrottled(organization, `heatmap phase: organisation ${organization.id}`);
  const organizationUuid = TypeID.fromString(organization.id, 'org').toUUID();
  const tenant = { organizationId: organizationUuid, mode: MODE };
  Object.assign(partial, {
    organization: organization.id,
    readings,
    region: REGION,
    requests,
    warmup,
    targetP99Ms: HEATMAP_P99_TARGET_MS,
    boxes: [],
  });

  log(`heatmap phase: seeding ${readings.toLocaleString('en')} readings into ${organization.id} …`);
  const seededAt = performance.now();
  await seedReadings(db, organizationUuid, readings);
  partial.seedSeconds = Math.round((performance.now() - seededAt) / 100) / 10;
  const {
    rows: [{ tiles }],
  } = await db.query(
    `SELECT CASE WHEN to_regclass('dowsing_reading_tiles') IS NULL THEN NULL
            ELSE (SELECT count(*)::int FROM dowsing_reading_tiles WHERE organization_id = $1) END AS tiles`,
    [organizationUuid],
  );
  partial.storedTiles = tiles;
  log(
    `heatmap phase: seeded in ${partial.seedSeconds} s (${tiles === null ? 'no tile table' : `${tiles.toLocaleString('en')} stored tiles`}); ${warmup} untimed, then ${requests} timed requests per box, one at a time …`,
  );

  const url = `${apiBase}/v2/dowsing/heatmap`;
  const failed = [];
  for (const box of BOXES) {
    const level = finestLevel(lib, box.bounds);
    const cellSizeMeters = lib.cellSizeOfLevel(level);
    const grid = lib.heatmapGrid(box.bounds, lib.levelForCellSize(cellSizeMeters));
    const { south, west, north, east } = box.bounds;
    const {
      rows: [{ expected }],
    } = await db.query(
      `SELECT count(*)::int AS expected FROM dowsing_readings
        WHERE organization_id = $1 AND mode = $2 AND latitude BETWEEN $3 AND $4
          AND longitude BETWEEN $5 AND $6`,
      [organizationUuid, MODE, south, north, west, east],
    );
    const row = {
      label: box.label,
      bounds: box.bounds,
      format: box.accept ?? 'application/json',
      cellSizeMeters,
      level: grid.level,
      gridCells: grid.cells,
      expectedReadings: expected,
    };
    partial.boxes.push(row);
    const body = JSON.stringify({
      bounds: box.bounds,
      cell_size_meters: cellSizeMeters,
      source: 'stored',
    });
    const headers = {
      'x-api-key': organization.admin_api_key,
      'content-type': 'application/json',
      ...(box.accept ? { accept: box.accept } : {}),
    };
    const latencies = [];
    try {
      for (let i = 0; i < warmup + requests; i++) {
        const { ms, text, type } = await post(url, headers, body);
        if (i === 0) {
          const answer = JSON.parse(text);
          const summary = box.accept ? answer.heatmap : answer;
          row.answer = {
            bytes: Buffer.byteLength(text),
            contentType: type.split(';')[0],
            totalReadings: summary.total_readings,
            nonEmptyCells: (box.accept ? answer.features : answer.cells).length,
            cellSize: summary.cell_size_meters,
          };
          if (summary.level !== grid.level || summary.grid.cells !== grid.cells)
            throw new Error(
              `answered level ${summary.level} with ${summary.grid.cells} cells, expected level ${grid.level} with ${grid.cells}`,
            );
          if (summary.total_readings !== expected)
            throw new Error(
              `counted ${summary.total_readings} readings in the box, the table holds ${expected}`,
            );
          if (box.accept && row.answer.contentType !== box.accept)
            throw new Error(`answered ${row.answer.contentType}, asked for ${box.accept}`);
        }
        // Every answer, cheaply (after its timing): the same count as the first.
        const total = Number(/"total_readings":(\d+)/.exec(text)?.[1]);
        if (total !== expected)
          throw new Error(
            `request ${i + 1} counted ${total} readings, the table holds ${expected}`,
          );
        if (i >= warmup) latencies.push(ms);
      }
    } catch (error) {
      row.error = error.message;
      failed.push(`${box.label}: ${error.message}`);
      log(
        `heatmap phase: ${box.label} FAILED after ${latencies.length} timed requests: ${error.message}`,
      );
      continue;
    }
    row.latencyMs = percentiles(latencies);
    row.met = row.latencyMs.p99 < HEATMAP_P99_TARGET_MS;
    log(
      `  ${box.label}: p50 ${row.latencyMs.p50} ms, p95 ${row.latencyMs.p95} ms, p99 ${row.latencyMs.p99} ms — ${row.met ? 'met' : 'NOT MET'}`,
    );
  }

  // Where the time goes, for every box (met or not): the service's own statement. The GeoJSON
  // answer issues the same statement as the JSON one over the same box, so it is run once.
  log("heatmap phase: the service's statement of each box, timed from here and EXPLAIN ANALYZEd …");
  const explained = new Map();
  for (const row of partial.boxes.filter((r) => r.latencyMs)) {
    const key = JSON.stringify([row.bounds, row.cellSizeMeters]);
    if (explained.has(key)) {
      row.database = { sameAs: explained.get(key) };
      continue;
    }
    explained.set(key, row.label);
    try {
      row.database = await heatmapExplain(db, lib, tenant, row.bounds, row.cellSizeMeters);
    } catch (error) {
      row.database = { error: error.message };
    }
  }
  if (failed.length > 0)
    throw new Error(
      `heatmap phase: ${failed.length} of ${BOXES.length} boxes failed: ${failed.join('; ')}`,
    );
  return partial;
}

const fmt = (n, digits = 1) =>
  n === null || n === undefined
    ? '-'
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function heatmapLines(r) {
  const lines = [];
  if (r.readings)
    lines.push(
      `POST /v2/dowsing/heatmap (source stored) on ${r.readings.toLocaleString('en')} readings of one organisation (${r.organization}; seeded in ${r.seedSeconds ?? '-'} s, ${r.storedTiles === null || r.storedTiles === undefined ? 'no' : r.storedTiles.toLocaleString('en')} stored tiles); ${r.requests} sequential requests per box after ${r.warmup} untimed; target p99 < ${r.targetP99Ms} ms:`,
      `  ${'box'.padEnd(32)}${'cell m'.padStart(8)}${'cells'.padStart(7)}${'non-empty'.padStart(10)}${'readings'.padStart(11)}${'kB'.padStart(7)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}  met`,
    );
  for (const row of r.boxes ?? []) {
    if (row.error) {
      lines.push(`  ${row.label.padEnd(32)}  FAILED: ${row.error}`);
      continue;
    }
    if (!row.latencyMs) continue;
    const l = row.latencyMs;
    lines.push(
      `  ${row.label.padEnd(32)}${fmt(row.cellSizeMeters, 0).padStart(8)}${fmt(row.gridCells, 0).padStart(7)}${fmt(row.answer.nonEmptyCells, 0).padStart(10)}${fmt(row.answer.totalReadings, 0).padStart(11)}${fmt(row.answer.bytes / 1024, 0).padStart(7)}${fmt(l.p50).padStart(9)}${fmt(l.p95).padStart(9)}${fmt(l.p99).padStart(9)}${fmt(l.max).padStart(9)}  ${row.met ? 'yes' : 'NO'}`,
    );
  }
  for (const row of (r.boxes ?? []).filter((x) => x.database)) {
    const d = row.database;
    if (d.sameAs) {
      lines.push(`  ${row.label}: the same statement as ${d.sameAs}`);
      continue;
    }
    if (d.error) {
      lines.push(`  ${row.label}: EXPLAIN failed: ${d.error}`);
      continue;
    }
    const relations = Object.entries(d.relations)
      .map(
        ([name, e]) =>
          `${name} ${fmt(e.rows, 0)} rows in ${e.scans} scan${e.scans === 1 ? '' : 's'} (${fmt(e.ms)} ms)`,
      )
      .join(', ');
    lines.push(
      `  ${row.label}: the service's statement (level ${d.level}, ${fmt(d.statementBytes / 1024)} kB, ${d.parameters} parameters, ${fmt(d.resultRows, 0)} rows) takes ${fmt(d.statementMs)} ms from here (median), of the request's p50 ${fmt(row.latencyMs.p50)} ms;`,
      `    EXPLAIN ANALYZE: planning ${fmt(d.planningMs)} ms, execution ${fmt(d.executionMs)} ms — scans: ${relations}`,
      `    own time by node: ${d.nodes
        .slice(0, 4)
        .map(
          (n) =>
            `${n.node}${n.count > 1 ? ` ×${n.count}` : ''} ${fmt(n.ms)} ms (${fmt(n.rows, 0)} rows)`,
        )
        .join(', ')}`,
    );
  }
  return lines;
}
