// Where the time of POST /v2/analysis/pattern-recognition goes: the same steps as
// PatternRecognitionService.recognize, one at a time, in this process, with the service's own
// built code (dist/libs/statistics) and the same SQL, each timed on its own:
//   read       the service's SELECT of the finished analyses (PostgreSQL, transfer, row parsing)
//   descriptors  the binomial recurrence test over the vocabulary
//   dbscan     DBSCAN on the located items
//   null       the Monte-Carlo cluster null (99 × DBSCAN on uniform points up to 2,000 located items, 39 above, as the service)
//   time       weekday and hour counts and their chi-square tests
//   chi-square Monte Carlo  what chiSquareMonteCarloPValue costs on the hour counts — the service
//              runs it only when a cell expects fewer than 5 items (reported as used or not)
// Used by the pattern-recognition phase (bench/patterns.mjs); also runs on its own:
//
//   node bench/pattern-breakdown.mjs <org_…> [repetitions]     (DATABASE_URL as the bench's)

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** PatternRecognitionService's defaults for a body of `{filter: {kinds: ['analysis']}}`. */
const REQUEST = { minSupport: 2, clusterRadiusMeters: 5000, minClusterSize: 3, correction: 'holm' };
const MAX_PATTERN_ITEMS = 10_000;

/** PatternRecognitionService.finishedAnalyses, verbatim. */
const FINISHED_ANALYSES = `SELECT id, created_at AS "createdAt", latitude, longitude,
              COALESCE(results->'descriptors', '[]'::jsonb) AS descriptors
         FROM analyses
        WHERE organization_id = $1 AND mode = $2 AND status = 'completed'
          AND ($3::uuid[] IS NULL OR id = ANY($3)) AND ($4::text IS NULL OR target_type = $4)
          AND ($5::timestamptz IS NULL OR created_at >= $5)
          AND ($6::timestamptz IS NULL OR created_at <= $6)
        ORDER BY created_at DESC, id DESC LIMIT $7`;

async function loadBuilt(root) {
  const built = (path) => import(pathToFileURL(join(root, path)).href);
  const [statistics, vocabulary] = await Promise.all([
    built('dist/libs/statistics/src/index.js'),
    built('dist/libs/engines/src/descriptor-vocabulary.js'),
  ]);
  return { ...statistics, DESCRIPTOR_TERMS: vocabulary.DESCRIPTOR_TERMS };
}

/** One pass of the service's work, each step timed (ms). */
async function onePass(db, s, organizationUuid, mode) {
  const ms = {};
  let started = performance.now();
  const { rows } = await db.query(FINISHED_ANALYSES, [
    organizationUuid,
    mode,
    null,
    null,
    null,
    null,
    MAX_PATTERN_ITEMS + 1,
  ]);
  ms.read = performance.now() - started;

  started = performance.now();
  const described = rows.filter((item) => item.descriptors.length > 0);
  const vocabulary = s.DESCRIPTOR_TERMS.length;
  const baseline =
    described.reduce((sum, item) => sum + Math.min(1, item.descriptors.length / vocabulary), 0) /
    Math.max(1, described.length);
  const distinctTerms = new Set(described.flatMap((item) => item.descriptors)).size;
  if (described.length > 0)
    s.descriptorRecurrence(
      described.map((item) => item.descriptors),
      () => baseline,
      {
        minSupport: REQUEST.minSupport,
        correction: REQUEST.correction,
        familySize: Math.max(vocabulary, distinctTerms),
      },
    );
  ms.descriptors = performance.now() - started;

  started = performance.now();
  const points = rows
    .filter((item) => item.latitude !== null && item.longitude !== null)
    .map(({ latitude, longitude }) => ({ latitude, longitude }));
  const found = s.dbscan(points, REQUEST.clusterRadiusMeters, REQUEST.minClusterSize);
  ms.dbscan = performance.now() - started;

  started = performance.now();
  // As the service does: 99 replicates up to 2,000 located items, 39 above.
  const replicates = points.length <= 2_000 ? 99 : 39;
  s.clusterPValues(
    found.clusters,
    s.clusterNullSample(points, REQUEST.clusterRadiusMeters, REQUEST.minClusterSize, replicates),
  );
  ms.clusterNull = performance.now() - started;

  started = performance.now();
  const counts = s.weekdayHourCounts(rows.map((item) => new Date(item.createdAt)));
  const weekday = s.chiSquareUniformity(counts.weekday);
  const hour = s.chiSquareUniformity(counts.hour);
  ms.timeTests = performance.now() - started;
  const monteCarloUsed = rows.length > 0 && (weekday.small_expected || hour.small_expected);

  started = performance.now();
  s.chiSquareMonteCarloPValue(counts.hour);
  ms.chiSquareMonteCarlo = performance.now() - started;

  return {
    ms,
    items: rows.length,
    located: points.length,
    clusters: found.clusters.length,
    monteCarloUsed,
  };
}

/**
 * `repetitions` timed passes after one untimed; the median of each step (ms), the share of the
 * steps the service runs, and PostgreSQL's own execution time of the read (EXPLAIN ANALYZE).
 */
export async function patternBreakdown({
  db,
  root,
  organizationUuid,
  mode = 'live',
  repetitions = 5,
}) {
  const s = await loadBuilt(root);
  await onePass(db, s, organizationUuid, mode);
  const passes = [];
  for (let i = 0; i < repetitions; i++) passes.push(await onePass(db, s, organizationUuid, mode));
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)];
  };
  const steps = Object.fromEntries(
    Object.keys(passes[0].ms).map((step) => [
      step,
      Math.round(median(passes.map((p) => p.ms[step])) * 10) / 10,
    ]),
  );
  const { monteCarloUsed } = passes[0];
  const run = ['read', 'descriptors', 'dbscan', 'clusterNull', 'timeTests'];
  if (monteCarloUsed) run.push('chiSquareMonteCarlo');
  const totalMs = Math.round(run.reduce((sum, step) => sum + steps[step], 0) * 10) / 10;
  const { rows: plan } = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${FINISHED_ANALYSES}`, [
    organizationUuid,
    mode,
    null,
    null,
    null,
    null,
    MAX_PATTERN_ITEMS + 1,
  ]);
  return {
    repetitions,
    items: passes[0].items,
    located: passes[0].located,
    clusters: passes[0].clusters,
    stepsMs: steps,
    stepsRun: run,
    totalMs,
    monteCarloUsed,
    postgresExecutionMs: Math.round(plan[0]['QUERY PLAN'][0]['Execution Time'] * 10) / 10,
  };
}

const STEP_NAMES = {
  read: 'DB read (query, transfer, row parsing)',
  descriptors: 'descriptor recurrence (binomial, Holm)',
  dbscan: 'DBSCAN',
  clusterNull: 'Monte-Carlo cluster null (replicates × DBSCAN)',
  timeTests: 'weekday/hour counts + chi-square',
  chiSquareMonteCarlo: 'chi-square Monte Carlo (1,999 tables)',
};

export function breakdownLines(b, httpP50Ms = null) {
  const lines = [
    `  where the time goes (median of ${b.repetitions} passes of the service's steps in the bench process, built code; ${b.items.toLocaleString('en')} items, ${b.located.toLocaleString('en')} located, ${b.clusters} clusters):`,
  ];
  for (const [step, value] of Object.entries(b.stepsMs)) {
    const used = b.stepsRun.includes(step);
    const share = used && b.totalMs > 0 ? `${Math.round((100 * value) / b.totalMs)} %` : '';
    lines.push(
      `    ${STEP_NAMES[step].padEnd(42)}${value.toFixed(1).padStart(9)} ms ${share.padStart(5)}${used ? '' : '  (not run by the service here: no cell expects < 5)'}`,
    );
  }
  lines.push(
    `    ${'sum of the steps the service runs'.padEnd(42)}${b.totalMs.toFixed(1).padStart(9)} ms`,
    `    (PostgreSQL's own execution of the read: ${b.postgresExecutionMs} ms.${httpP50Ms === null ? '' : ` The HTTP p50, ${httpP50Ms.toFixed(1)} ms, less these steps leaves ${(httpP50Ms - b.totalMs).toFixed(1)} ms for the rest of the request — routing, auth, validation, serialising the answer — within the noise of timing the steps in another process.`})`,
  );
  return lines;
}

// Run on its own: node bench/pattern-breakdown.mjs <org_…> [repetitions]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [organization, repetitions = '5'] = process.argv.slice(2);
  if (!organization?.startsWith('org_')) {
    process.stderr.write('usage: node bench/pattern-breakdown.mjs <org_…> [repetitions]\n');
    process.exit(2);
  }
  const [{ default: pg }, { TypeID }] = await Promise.all([import('pg'), import('typeid-js')]);
  const db = new pg.Client({
    connectionString: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/sas_bench',
  });
  await db.connect();
  try {
    const result = await patternBreakdown({
      db,
      root: join(fileURLToPath(import.meta.url), '..', '..'),
      organizationUuid: TypeID.fromString(organization, 'org').toUUID(),
      repetitions: Number(repetitions),
    });
    process.stdout.write(`${breakdownLines(result).join('\n')}\n`);
  } finally {
    await db.end();
  }
}
