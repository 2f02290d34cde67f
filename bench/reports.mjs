// Reports bench (issue 16): how long the worker takes to build a report and how much memory it
// holds while it does, measured on the built lib (dist) the worker runs, in a child process of
// its own (a fresh process, so its peak RSS is the memory of the builds and nothing else).
//
//   node bench/reports.mjs          (npm run build first; npm run bench runs it as its `reports`
//                                    phase unless BENCH_REPORTS=0)
//
// 1. pdf:  BENCH_REPORT_PDF_CASES (default 10,000) cases seeded by npm run db:seed-history's
//          seed into a new tenant; the history PDF (title page, figures, four charts, the newest
//          1,000 cases) built BENCH_REPORT_REQUESTS times (default 20) after 3 untimed;
//          p50/p95/max against p95 ≤ 3 s, and the child's peak RSS against ≤ 150 MB.
// 2. csv:  BENCH_REPORT_CSV_ROWS (default 1,000,000) cases into another tenant; the history CSV
//          built once; seconds, bytes, the child's peak RSS and how far it rose while building.
//          BENCH_REPORT_CSV_ROWS=0 skips it.
// BENCH_REPORT_CHILD_OPTIONS: node flags of the building process (a heap limit, to see what a build
// keeps rather than how lazily V8 collects).
//
// Its own database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/sas_bench_reports,
// created and migrated if missing), so it never empties the main bench's tables; one run at a
// time (an advisory lock). The seeded cases are deleted at the end.
import { sqlOnPool, transactionOn } from './sql-on-pool.mjs';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const ROOT = join(import.meta.dirname, '..');
const env = process.env;
const DATABASE_URL = env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sas_bench_reports';
const PDF_CASES = Number(env.BENCH_REPORT_PDF_CASES ?? 10_000);
const CSV_ROWS = Number(env.BENCH_REPORT_CSV_ROWS ?? 1_000_000);
const REQUESTS = Number(env.BENCH_REPORT_REQUESTS ?? 20);
const WARMUP = 3;
// Node flags of the building process, e.g. "--max-old-space-size=64 --max-semi-space-size=2":
// without a heap limit V8 collects lazily and the peak RSS shows its headroom, not what a build keeps.
const CHILD_OPTIONS = (env.BENCH_REPORT_CHILD_OPTIONS ?? '').split(' ').filter(Boolean);
const TARGETS = { pdfP95Seconds: 3, pdfPeakRssMb: 150 };
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const mb = (bytes) => Math.round((bytes / 1024 ** 2) * 10) / 10;
const quantile = (sorted, q) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

if (process.argv[1] === import.meta.filename) {
  if (process.argv[2] === '--child')
    await child(process.argv[3], process.argv[4], Number(process.argv[5]));
  else console.log(JSON.stringify(await reportsPhase({ log: console.log }), null, 2));
}

/** The child: builds one kind of report `times` times on one tenant; prints its figures as JSON. */
async function child(format, organizationId, times) {
  const { buildReport } = await dist('libs/reports/src/report-builder.js');
  const { HistoryReadModelRepository } = await dist('libs/history/src/index.js');
  const { Transaction } = await dist('libs/database/src/connection.js');
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  const tenant = { organizationId, mode: 'live' };
  const request = {
    id: 'rpt_bench',
    reportType: 'history',
    format,
    parameters: { dateFrom: null, dateTo: null, type: null },
    generatedAt: new Date('2026-01-01T00:00:00Z'),
  };
  const sources = {
    performance: () => Promise.reject(new Error('not in this bench')),
    cases: new HistoryReadModelRepository(sqlOnPool(pool)),
  };
  // The worker's sink writes 1 MB pieces to a large object; here they are counted and dropped,
  // so the figures are the build's alone (the writes cost a round trip per MB in the worker).
  const build = () =>
    transactionOn(
      pool,
      async (client) => {
        let bytes = 0;
        const sink = { write: async (chunk) => void (bytes += chunk.length) };
        const built = await buildReport(new Transaction(client), tenant, request, sources, sink);
        return { ...built, bytes };
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  const rssBefore = process.memoryUsage().rss;
  const seconds = [];
  let bytes = 0;
  let rows = 0;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    const built = await build();
    seconds.push((performance.now() - started) / 1000);
    bytes = built.bytes;
    rows = built.rowCount;
  }
  await pool.end();
  const peakRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`${JSON.stringify({ seconds, bytes, rows, rssBefore, peakRss })}\n`);
}

function runChild(format, organizationId, times) {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [...CHILD_OPTIONS, import.meta.filename, '--child', format, organizationId, String(times)],
      {
        env: { ...env, DATABASE_URL, NODE_ENV: 'production' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)))
        : reject(new Error(`child exited ${code}`)),
    );
  });
}

/**
 * Both measurements; what was measured so far is in `partial` if one fails. `log` prints progress.
 */
export async function reportsPhase({ log, partial = {} }) {
  const admin = new pg.Client({ connectionString: new URL('/postgres', DATABASE_URL).toString() });
  await admin.connect();
  const name = new URL(DATABASE_URL).pathname.slice(1);
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  const { runMigrations } = await dist('libs/database/src/index.js');
  await runMigrations({ url: DATABASE_URL });

  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const [{ locked }] = (
    await db.query(`SELECT pg_try_advisory_lock(hashtext('sas-bench-reports')) AS locked`)
  ).rows;
  if (!locked) throw new Error(`another reports bench is using ${name}; wait for it to end`);
  const { seedHistoryCases } = await dist('apps/cli/src/seeded-history.js');
  const seedPool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
  const seedSql = sqlOnPool(seedPool);
  const tenants = [];
  const seed = async (cases) => {
    const tenant = { organizationId: randomUUID(), mode: 'live' };
    tenants.push(tenant);
    const started = performance.now();
    await seedHistoryCases(seedSql, tenant, { to: cases });
    await db.query('ANALYZE history_cases');
    return { tenant, seedSeconds: Math.round((performance.now() - started) / 100) / 10 };
  };
  const result = partial;
  try {
    log(`reports bench: seeding ${PDF_CASES.toLocaleString('en')} cases for the PDF …`);
    const pdfTenant = await seed(PDF_CASES);
    const pdf = await runChild('pdf', pdfTenant.tenant.organizationId, WARMUP + REQUESTS);
    const timed = pdf.seconds.slice(WARMUP).sort((a, b) => a - b);
    result.pdf = {
      cases: PDF_CASES,
      builds: timed.length,
      p50Seconds: quantile(timed, 0.5),
      p95Seconds: quantile(timed, 0.95),
      maxSeconds: timed.at(-1),
      bytes: pdf.bytes,
      tableRows: pdf.rows,
      rssBeforeMb: mb(pdf.rssBefore),
      peakRssMb: mb(pdf.peakRss),
    };
    result.pdf.met =
      result.pdf.p95Seconds <= TARGETS.pdfP95Seconds &&
      result.pdf.peakRssMb <= TARGETS.pdfPeakRssMb;
    log(`reports bench: ${reportsLines({ pdf: result.pdf })[0]}`);

    if (CSV_ROWS > 0) {
      log(`reports bench: seeding ${CSV_ROWS.toLocaleString('en')} cases for the CSV …`);
      const csvTenant = await seed(CSV_ROWS);
      const csv = await runChild('csv', csvTenant.tenant.organizationId, 1);
      result.csv = {
        rows: csv.rows,
        seedSeconds: csvTenant.seedSeconds,
        seconds: Math.round(csv.seconds[0] * 10) / 10,
        bytes: csv.bytes,
        mb: mb(csv.bytes),
        rssBeforeMb: mb(csv.rssBefore),
        peakRssMb: mb(csv.peakRss),
        rssRiseMb: mb(csv.peakRss - csv.rssBefore),
      };
      log(`reports bench: ${reportsLines({ csv: result.csv })[0]}`);
    }
  } finally {
    for (const tenant of tenants) {
      await db.query('DELETE FROM history_cases WHERE organization_id = $1', [
        tenant.organizationId,
      ]);
    }
    await seedPool.end();
    await db.end();
  }
  return result;
}

/** The phase's figures as lines of text (either part may be missing when it failed). */
export function reportsLines(result) {
  const lines = [];
  const { pdf, csv } = result;
  if (pdf)
    lines.push(
      `history PDF of ${pdf.cases.toLocaleString('en')} cases (${pdf.tableRows} table rows, ${Math.round(pdf.bytes / 1024)} KiB), ${pdf.builds} builds: p50 ${pdf.p50Seconds.toFixed(3)} s, p95 ${pdf.p95Seconds.toFixed(3)} s (target ≤ ${TARGETS.pdfP95Seconds} s); peak RSS ${pdf.peakRssMb} MB, ${pdf.rssBeforeMb} MB of it before the first build (target ≤ ${TARGETS.pdfPeakRssMb} MB)${CHILD_OPTIONS.length > 0 ? ` with ${CHILD_OPTIONS.join(' ')}` : ''} — ${pdf.met ? 'met' : 'NOT met'}`,
    );
  if (csv)
    lines.push(
      `history CSV of ${csv.rows.toLocaleString('en')} rows (${csv.mb} MB) in ${csv.seconds} s; peak RSS ${csv.peakRssMb} MB, ${csv.rssRiseMb} MB above the ${csv.rssBeforeMb} MB before it`,
    );
  return lines;
}
