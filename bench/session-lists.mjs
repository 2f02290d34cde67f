// GET /v2/sessions at scale (issue: lists that scale): a million sessions in one organisation,
// seeded by `npm run db:seed-sessions`, then every filter combination below asked for one page
// at a time (one connection, so each figure is the latency of one request, not of a queue).
// Target: p99 under 20 ms for every combination. Run by bench/run.mjs after its other phases.

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { describeError } from './errors.mjs';
import { BENCH_LIMITS, assertUnthrottled } from './limits.mjs';
import { ownGcPauses, spanSince } from './own-gcs.mjs';

export const LIST_P99_TARGET_MS = 20;

/** Filter combinations: each single filter, and pairs and triples that narrow each other. */
const QUERIES = [
  ['no filter', ''],
  ['status (common)', 'status=completed'],
  ['status (rare)', 'status=in_progress'],
  ['type', 'type=dowsing'],
  ['score > 0.8', 'confidence_score[gt]=0.8'],
  ['score > 0.95 (rare)', 'confidence_score[gt]=0.95'],
  ['score range', 'confidence_score[gte]=0.5&confidence_score[lt]=0.51'],
  ['score equal', 'confidence_score=0.5'],
  ['analyst', 'analyst_id=analyst_sim_7'],
  ['analyst (none)', 'analyst_id=analyst_nobody'],
  ['created_after (1 day)', 'created_after={1d}'],
  ['created_after (300 days)', 'created_after={300d}'],
  ['status + type', 'status=failed&type=dowsing'],
  ['status + type + score', 'status=completed&type=dowsing&confidence_score[gt]=0.9'],
  ['analyst + score', 'analyst_id=analyst_sim_7&confidence_score[gt]=0.9'],
  [
    'analyst + score + created_after',
    'analyst_id=analyst_sim_7&confidence_score[gt]=0.9&created_after={30d}',
  ],
  ['type + created_after', 'type=dowsing&created_after={2d}'],
  ['type + score (rare)', 'type=dowsing&confidence_score[gt]=0.97'],
  [
    'all five',
    'status=completed&type=remote_viewing&confidence_score[gte]=0.6&analyst_id=analyst_sim_3&created_after={90d}',
  ],
  ['page 50 of no filter', '{page50}'],
];

/** Each request's deadline: generous, but a server that stopped answering fails the phase. */
const REQUEST_TIMEOUT_MS = 30_000;

/** GET as JSON, with a deadline; what failed is named, the reason kept as the cause. */
async function getJson(url, headers) {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await response.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body, text };
  } catch (error) {
    throw new Error(`GET ${url} failed (deadline ${REQUEST_TIMEOUT_MS / 1000} s)`, {
      cause: error,
    });
  }
}

/**
 * Seeds `count` sessions into a new organisation (made by the operator, whose admin key the
 * requests then use; with the bench's limits, so that no request is refused), measures every
 * query `requests` times after `warmup` untimed ones, and returns one row per query with p50/p99
 * and whether p99 met the target. `partial` (the phase's) gets the rows as they are measured; a
 * query that fails is recorded in its row and the others still run; the phase then throws.
 */
export async function sessionListPhase({
  apiBase,
  operatorHeaders,
  shared,
  count,
  requests,
  warmup,
  apiFullGcs = null,
  log,
  partial = {},
}) {
  let created;
  try {
    created = await fetch(`${apiBase}/v2/enterprise/organizations`, {
      method: 'POST',
      headers: { ...operatorHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Session lists at scale', ...BENCH_LIMITS }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error('list phase: creating its organisation failed', { cause: error });
  }
  const text = await created.text();
  if (created.status !== 201)
    throw new Error(`list phase: organisation: HTTP ${created.status} ${text.slice(0, 300)}`);
  const organization = JSON.parse(text);
  assertUnthrottled(organization, `list phase: organisation ${organization.id}`);
  const headers = { 'x-api-key': organization.admin_api_key };
  Object.assign(partial, {
    organization: organization.id,
    sessions: count,
    requestsPerQuery: requests,
    targetP99Ms: LIST_P99_TARGET_MS,
    rows: [],
  });

  log(`list phase: seeding ${count.toLocaleString('en')} sessions into ${organization.id} …`);
  const seededAt = performance.now();
  await seed(shared, organization.id, count);
  const seedSeconds = (performance.now() - seededAt) / 1000;
  partial.seedSeconds = Math.round(seedSeconds);
  log(
    `list phase: seeded in ${seedSeconds.toFixed(0)} s; measuring ${QUERIES.length} queries × ${requests} …`,
  );

  const page50Cursor = await cursorOfPage(apiBase, headers, 50);
  const rows = partial.rows;
  const failed = [];
  const ownGcs = ownGcPauses();
  for (const [label, template] of QUERIES) {
    const query = expand(template, page50Cursor);
    const path = `/v2/sessions?per_page=20${query ? `&${query}` : ''}`;
    const latencies = [];
    const spans = [];
    let total = null;
    let from = null;
    try {
      for (let i = 0; i < warmup + requests; i++) {
        if (i === warmup) from = Date.now();
        const started = performance.now();
        const { status, body, text } = await getJson(`${apiBase}${path}`, headers);
        const elapsed = performance.now() - started;
        if (status !== 200) throw new Error(`HTTP ${status} ${text.slice(0, 300)}`);
        if (i >= warmup) {
          latencies.push(elapsed);
          spans.push(spanSince(started));
        }
        total = body.pagination.total_estimated
          ? `~${body.pagination.total}`
          : String(body.pagination.total);
      }
    } catch (error) {
      failed.push(`${label}: ${describeError(error, { oneLine: true })}`);
      rows.push({ label, query: path, error: describeError(error, { oneLine: true }) });
      log(`list phase: ${label} FAILED after ${latencies.length} timed requests: ${failed.at(-1)}`);
      continue;
    }
    latencies.sort((a, b) => a - b);
    const at = (p) =>
      latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
    rows.push({
      label,
      query: path,
      total,
      p50Ms: round2(at(50)),
      p99Ms: round2(at(99)),
      maxMs: round2(latencies.at(-1)),
      met: at(99) < LIST_P99_TARGET_MS,
      ...(apiFullGcs ? { apiFullGcs: apiFullGcs({ from, to: Date.now() }) } : {}),
      duringOwnGc: ownGcs.overlapping(spans),
    });
  }
  ownGcs.stop();
  if (failed.length > 0)
    throw new Error(
      `list phase: ${failed.length} of ${QUERIES.length} queries failed: ${failed.join('; ')}`,
    );
  return partial;
}

export function printSessionListPhase(phase, write = (line) => process.stdout.write(`${line}\n`)) {
  write('');
  write(
    `GET /v2/sessions on ${phase.sessions.toLocaleString('en')} sessions in one organisation (${phase.requestsPerQuery} sequential requests each; target p99 < ${phase.targetP99Ms} ms):`,
  );
  write(
    `${'filter'.padEnd(34)}${'total'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}  met${'GCs'.padStart(5)}${'own'.padStart(5)}`,
  );
  for (const row of phase.rows) {
    if (row.error) {
      write(`${row.label.padEnd(34)}  FAILED: ${row.error}`);
      continue;
    }
    write(
      `${row.label.padEnd(34)}${row.total.padStart(10)}${row.p50Ms.toFixed(2).padStart(9)}${row.p99Ms.toFixed(2).padStart(9)}${row.maxMs.toFixed(2).padStart(9)}  ${row.met ? 'yes' : 'NO '}${String(row.apiFullGcs?.count ?? '-').padStart(5)}${String(row.duringOwnGc ?? '-').padStart(5)}`,
    );
  }
  const measured = phase.rows.filter((row) => !row.error);
  if (measured.length > 0) {
    const worst = Math.max(...measured.map((row) => row.p99Ms));
    write(
      `Worst p99 over ${measured.length < phase.rows.length ? 'the measured' : 'all'} combinations: ${worst.toFixed(2)} ms.`,
    );
    write(
      `GCs: the API's full garbage collections during the combination's timed requests${measured.some((row) => row.apiFullGcs?.count) ? ` (the longest a pause of ${Math.max(...measured.map((row) => row.apiFullGcs?.longestPauseMs ?? 0)).toFixed(1)} ms)` : ''}; own: timed requests during which the bench process itself paused for a garbage collection, which their latency includes.`,
    );
  }
}

function seed(shared, organizationId, count) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        'dist/apps/cli/src/seed-sessions.js',
        '--count',
        String(count),
        '--organization',
        organizationId,
      ],
      { env: { ...process.env, ...shared }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`seeding failed (exit ${code}): ${stderr.slice(-500)}`)),
    );
  });
}

async function cursorOfPage(apiBase, headers, page) {
  let cursor = null;
  for (let n = 1; n < page; n++) {
    const { status, body, text } = await getJson(
      `${apiBase}/v2/sessions?per_page=20${cursor ? `&cursor=${cursor}` : ''}`,
      headers,
    );
    if (status !== 200)
      throw new Error(`list phase: page ${n} of no filter: HTTP ${status} ${text.slice(0, 300)}`);
    cursor = body.pagination.next_cursor;
  }
  return cursor;
}

function expand(template, page50Cursor) {
  return template
    .replace('{page50}', `cursor=${page50Cursor}`)
    .replace(/\{(\d+)d\}/g, (_, days) =>
      new Date(Date.now() - Number(days) * 86_400_000).toISOString(),
    );
}

const round2 = (x) => Math.round(x * 100) / 100;
