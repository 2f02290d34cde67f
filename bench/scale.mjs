// How the API grows with instances: requests/s of 1, 2 and 4 API processes (built output) behind
// HAProxy with the repository's deploy/haproxy.cfg, on the same authenticated read as bench/run.mjs
// (GET /v1/sessions/{id} with a bearer token), as ratios to one process. Each count is measured in
// several interleaved rounds (1, 2, 4, 1, 2, 4, …) and reported as the median, with where the CPU
// went (the APIs, HAProxy, the load generator, PostgreSQL's backends, Redis) to say why the curve
// bends where it does.
//
//   npm run build && node bench/scale.mjs
//   BENCH_SCALE_COUNTS=1,2,4 BENCH_DURATION=10 BENCH_CONNECTIONS=50 BENCH_ROUNDS=3 node bench/scale.mjs
//
// Needs /usr/sbin/haproxy (Debian's haproxy; HAPROXY_BIN to use another), PostgreSQL and Redis as
// bench/run.mjs does (DATABASE_URL, default the sas_bench database; REDIS_URL). Results go to
// bench/results/scale/<run>-<phase>.json and <run>-run.json (latest.json there is the newest run),
// kept apart from bench/run.mjs's files, with each process's output (api-1.log …, haproxy.log,
// migrate.log). The processes are started with bench/services.mjs. Exit code 1 when a phase failed
// or a count served more than 1 % errors.

import os from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { describeError } from './errors.mjs';
import { cpuMs, freePort, machineSnapshot } from './machine.mjs';
import { benchHeader, PhaseRunner } from './phases.mjs';
import {
  ROOT,
  benchOrganization,
  prepareDatabase,
  request,
  startApi,
  startProcess,
  stopAll,
  stopChild,
  waitReady,
} from './services.mjs';
import { median, wholeNumber } from './settings.mjs';

const RESULTS = join(ROOT, 'bench', 'results', 'scale');
const env = process.env;

const CONFIG = {
  databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/sas_bench',
  redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
  redisPrefix: 'sas-bench-scale',
  counts: (env.BENCH_SCALE_COUNTS ?? '1,2,4').split(',').map(Number),
  duration: wholeNumber('BENCH_DURATION', 10),
  connections: wholeNumber('BENCH_CONNECTIONS', 50),
  rounds: wholeNumber('BENCH_ROUNDS', 3),
  warmup: wholeNumber('BENCH_WARMUP', 2),
  poolMax: wholeNumber('DATABASE_POOL_MAX', 10),
  haproxy: env.HAPROXY_BIN || '/usr/sbin/haproxy',
  clientId: 'sas-bench-scale-client',
  clientSecret: 'sas-bench-scale-secret-4d2b8e6a1c9f',
  signingKeySecret: env.SIGNING_KEY_SECRET || 'sas-bench-signing-key-secret-5c1e8a7d3f90b2e4',
};
if (CONFIG.counts.some((n) => !Number.isInteger(n) || n < 1 || n > 4) || !CONFIG.counts.includes(1))
  throw new Error(
    'BENCH_SCALE_COUNTS: whole numbers from 1 to 4 (deploy/haproxy.cfg has four server lines), 1 among them',
  );
const MAX_ERROR_SHARE = 0.01;
/** A count gains "well" while it adds at least this share of one instance's throughput per instance. */
const LINEAR_SHARE = 0.8;
const CORES = os.availableParallelism();

const log = (line) => process.stdout.write(`[scale] ${line}\n`);

/** Busy (steal included) and total CPU time of the whole machine, in ms. */
function machineTime() {
  const { busyMs, stealMs, idleMs } = machineSnapshot();
  return { busy: busyMs + stealMs, total: busyMs + stealMs + idleMs };
}

async function redisCpuMs(redis) {
  const info = await redis.info('cpu');
  const read = (key) => Number(new RegExp(`^${key}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1000;
}

/** PostgreSQL backends serving the bench database (the APIs' pools), for their CPU. */
async function backendPids(db) {
  const { rows } = await db.query(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  return rows.map((row) => row.pid);
}

// ---------------------------------------------------------------------------------------------

async function setUp(partial) {
  const publicPort = await freePort();
  const publicUrl = `http://127.0.0.1:${publicPort}`;
  const shared = {
    DATABASE_URL: CONFIG.databaseUrl,
    REDIS_URL: CONFIG.redisUrl,
    REDIS_PREFIX: CONFIG.redisPrefix,
    DATABASE_POOL_MAX: String(CONFIG.poolMax),
    // Every instance is the one service behind HAProxy: tokens are issued for its address.
    PUBLIC_URL: publicUrl,
    NODE_ENV: 'production',
    SIGNING_KEY_SECRET: CONFIG.signingKeySecret,
    BOOTSTRAP_CLIENT_ID: CONFIG.clientId,
    BOOTSTRAP_CLIENT_SECRET: CONFIG.clientSecret,
    LOG_LEVEL: 'warn',
  };
  log('Migrating …');
  // One bench run per database at a time (bench/run.mjs takes the same lock).
  const db = await prepareDatabase(shared, 'sas-bench-run', RESULTS);
  const redis = new Redis(CONFIG.redisUrl, { lazyConnect: true });
  await redis.connect();

  const apis = [];
  for (let i = 0; i < Math.max(...CONFIG.counts); i++) {
    // One at a time: the first creates the signing key and the bootstrap client.
    apis.push(
      await startApi(shared, { logDir: RESULTS, name: `api-${i + 1}`, port: await freePort() }),
    );
  }
  partial.apis = apis.map((api) => api.base);

  const first = apis[0].base;
  const { organizationId, readHeaders, writeHeaders } = await benchOrganization(
    first,
    CONFIG.clientId,
    CONFIG.clientSecret,
  );
  const seed = await request(first, 'POST', '/v1/sessions', {
    headers: writeHeaders,
    body: JSON.stringify({ type: 'remote_viewing', target: 'Scale bench seed' }),
  });
  if (seed.status !== 201)
    throw new Error(`seed session: HTTP ${seed.status} ${seed.text.slice(0, 300)}`);
  partial.sessionId = seed.json.session_id;
  return {
    db,
    redis,
    apis,
    publicPort,
    publicUrl,
    readPath: `/v1/sessions/${seed.json.session_id}`,
    readHeaders,
    summary: { ...partial, publicUrl, organizationId },
  };
}

/** HAProxy in front of the first `count` APIs, once every one of them is in the rotation. */
async function startHaproxy(ctx, count) {
  const servers = {};
  ctx.apis.slice(0, count).forEach((api, i) => {
    servers[`API_${i + 1}`] = new URL(api.base).host;
    servers[`API_${i + 1}_STATE`] = 'enabled';
  });
  if (count < 2) servers.API_2_STATE = 'disabled';
  const haproxy = startProcess(
    'haproxy',
    CONFIG.haproxy,
    ['-db', '-f', 'deploy/haproxy.cfg'],
    {
      HAPROXY_BIND: `127.0.0.1:${ctx.publicPort}`,
      HAPROXY_LOG_LEVEL: 'err',
      // Enough for BENCH_CONNECTIONS and the server side, within common open-file limits.
      HAPROXY_MAXCONN: String(Math.max(1024, CONFIG.connections * 4)),
      API_CHECK_INTERVAL: '500ms',
      ...servers,
    },
    { logDir: RESULTS },
  );
  await waitReady(`${ctx.publicUrl}${ctx.readPath}`, haproxy, 60_000, async () => {
    const seen = new Set();
    for (let i = 0; i < count * 2; i++) {
      const response = await request(ctx.publicUrl, 'GET', ctx.readPath, {
        headers: ctx.readHeaders,
      });
      if (response.status !== 200) return `HTTP ${response.status}`;
      seen.add(response.headers.get('x-served-by'));
    }
    return seen.size === count || `${seen.size} of ${count} instances in the rotation`;
  });
  return haproxy;
}

async function load(ctx, durationS) {
  const result = await autocannon({
    url: `${ctx.publicUrl}${ctx.readPath}`,
    headers: ctx.readHeaders,
    connections: CONFIG.connections,
    duration: durationS,
  });
  const total = result.requests.total;
  return {
    requestsPerSecond: Math.round(result.requests.total / durationS),
    ok: result['2xx'],
    errors: result.errors + result.timeouts + result.non2xx,
    total,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
  };
}

/** One count in one round: HAProxy started afresh, warmed up, then measured with where the CPU went. */
async function measure(ctx, count) {
  const haproxy = await startHaproxy(ctx, count);
  try {
    await load(ctx, CONFIG.warmup);
    const apis = ctx.apis.slice(0, count);
    const backends = await backendPids(ctx.db);
    const before = {
      apis: apis.map((api) => cpuMs(api.child.pid)),
      haproxy: cpuMs(haproxy.pid),
      postgres: backends.map(cpuMs),
      redis: await redisCpuMs(ctx.redis),
      generator: process.cpuUsage(),
      machine: machineTime(),
    };
    const measured = await load(ctx, CONFIG.duration);
    const machine = machineTime();
    const wallMs = CONFIG.duration * 1000;
    const generator = process.cpuUsage(before.generator);
    const share = (ms) => Math.round((ms / wallMs) * 100); // % of one core
    const cpu = {
      apisPct: share(apis.reduce((sum, api, i) => sum + cpuMs(api.child.pid) - before.apis[i], 0)),
      haproxyPct: share(cpuMs(haproxy.pid) - before.haproxy),
      generatorPct: share((generator.user + generator.system) / 1000),
      postgresPct: share(
        backends.reduce((sum, pid, i) => {
          const after = cpuMs(pid);
          return after > 0 ? sum + Math.max(0, after - before.postgres[i]) : sum; // null: it went away
        }, 0),
      ),
      redisPct: share((await redisCpuMs(ctx.redis)) - before.redis),
      machineBusyPct: Math.round(
        ((machine.busy - before.machine.busy) / (machine.total - before.machine.total)) * 100,
      ),
    };
    // What else ran on the machine meanwhile (other processes, the kernel), in % of one core.
    cpu.otherPct = Math.max(
      0,
      cpu.machineBusyPct * CORES -
        (cpu.apisPct + cpu.haproxyPct + cpu.generatorPct + cpu.postgresPct + cpu.redisPct),
    );
    return { count, ...measured, cpu };
  } finally {
    await stopChild(haproxy);
  }
}

function analyse(rows) {
  const byCount = new Map();
  for (const row of rows) byCount.set(row.count, [...(byCount.get(row.count) ?? []), row]);
  const counts = [...byCount.keys()].sort((a, b) => a - b);
  const summary = counts.map((count) => {
    const runs = byCount.get(count);
    const pick = (f) => median(runs.map(f));
    return {
      count,
      requestsPerSecond: pick((r) => r.requestsPerSecond),
      rounds: runs.map((r) => r.requestsPerSecond),
      errors: runs.reduce((sum, r) => sum + r.errors, 0),
      total: runs.reduce((sum, r) => sum + r.total, 0),
      p99Ms: pick((r) => r.latencyMs.p99),
      cpu: Object.fromEntries(
        Object.keys(runs[0].cpu).map((key) => [key, pick((r) => r.cpu[key])]),
      ),
    };
  });
  const one = summary.find((s) => s.count === 1).requestsPerSecond;
  for (const s of summary) {
    s.ratio = Math.round((s.requestsPerSecond / one) * 100) / 100;
    s.perInstance = Math.round((s.ratio / s.count) * 100) / 100;
  }
  // The bend: the first count whose added instances each bring less than LINEAR_SHARE of one.
  let bend = null;
  for (let i = 1; i < summary.length; i++) {
    const [previous, current] = [summary[i - 1], summary[i]];
    const gainPerAdded = (current.ratio - previous.ratio) / (current.count - previous.count);
    if (gainPerAdded < LINEAR_SHARE) {
      bend = {
        from: previous.count,
        to: current.count,
        gainPerAdded: Math.round(gainPerAdded * 100) / 100,
      };
      break;
    }
  }
  return {
    cores: CORES,
    summary,
    bend,
    why: bend ? why(summary.find((s) => s.count === bend.to)) : null,
  };
}

/** What held the throughput back at the bend, from where the CPU went. */
function why(at) {
  const { cpu } = at;
  const parts = `APIs ${cpu.apisPct} %, HAProxy ${cpu.haproxyPct} %, load generator ${cpu.generatorPct} %, PostgreSQL backends ${cpu.postgresPct} %, Redis ${cpu.redisPct} %, everything else on the machine ${cpu.otherPct} % of one core`;
  if (cpu.machineBusyPct >= 85)
    return `cores: the machine was ${cpu.machineBusyPct} % busy with ${at.count} API processes on ${CORES} cores (${parts}); the API instances, HAProxy, the load generator, PostgreSQL and Redis all share them, so another instance only splits the same CPU`;
  if (cpu.postgresPct >= 80)
    return `PostgreSQL: its backends used ${cpu.postgresPct} % of a core with CPU to spare elsewhere (${parts})`;
  if (cpu.redisPct >= 80)
    return `Redis: single-threaded and at ${cpu.redisPct} % of its core (the rate limiter's script per request; ${parts})`;
  if (cpu.generatorPct >= 85)
    return `the load generator: one thread at ${cpu.generatorPct} % of a core (${parts})`;
  return `no single resource saturated (${parts}; machine ${cpu.machineBusyPct} % busy): latency-bound at ${CONFIG.connections} connections`;
}

function lines(result) {
  const out = [
    '',
    `Authenticated read (GET /v1/sessions/{id}) through HAProxy, ${CONFIG.connections} connections, ${CONFIG.duration} s × ${CONFIG.rounds} interleaved rounds, medians; ${CORES} cores:`,
  ];
  out.push(
    '  APIs   req/s    ratio  per API  p99 ms  CPU % of a core: APIs  HAProxy  generator  PostgreSQL  Redis  other  machine busy',
  );
  for (const s of result.summary) {
    out.push(
      `  ${String(s.count).padStart(4)}  ${String(s.requestsPerSecond).padStart(7)}  ${s.ratio.toFixed(2).padStart(6)}×  ${s.perInstance.toFixed(2).padStart(6)}  ${String(s.p99Ms).padStart(6)}  ${String(s.cpu.apisPct).padStart(21)}  ${String(s.cpu.haproxyPct).padStart(7)}  ${String(s.cpu.generatorPct).padStart(9)}  ${String(s.cpu.postgresPct).padStart(10)}  ${String(s.cpu.redisPct).padStart(5)}  ${String(s.cpu.otherPct).padStart(5)}  ${String(s.cpu.machineBusyPct).padStart(11)} %`,
    );
  }
  out.push(
    result.bend
      ? `The curve bends from ${result.bend.from} to ${result.bend.to} API processes (${result.bend.to} serve ${result.summary.find((x) => x.count === result.bend.to).ratio.toFixed(2)}× what 1 does; each process added brings ${result.bend.gainPerAdded}× of one): ${result.why}.`
      : `No bend up to ${result.summary.at(-1).count} API processes: each added one brings at least ${LINEAR_SHARE}× of one.`,
  );
  return out;
}

// ---------------------------------------------------------------------------------------------

const runner = new PhaseRunner({
  dir: RESULTS,
  root: ROOT,
  log,
  header: benchHeader('scale', CONFIG, { cpus: CORES, haproxy: CONFIG.haproxy }),
});

process.once('SIGINT', () => stopAll().finally(() => process.exit(130)));

let ok = false;
let ctx = null;
try {
  ctx = await runner.run('setup', setUp, { toJson: (context) => context.summary, fatal: true });
  if (ctx) {
    const rows = [];
    const counts = [...new Set(CONFIG.counts)].sort((a, b) => a - b);
    if (counts.at(-1) > CORES)
      log(
        `${counts.at(-1)} API processes on ${CORES} cores: more processes than cores, on purpose (where the curve bends).`,
      );
    for (let round = 1; round <= CONFIG.rounds; round++) {
      for (const count of counts) {
        const row = await runner.run(
          `round-${round}-${count}-api`,
          async () => measure(ctx, count),
          {
            print: (r) =>
              log(
                `round ${round}, ${count} API: ${r.requestsPerSecond} req/s, p99 ${r.latencyMs.p99} ms, ${r.errors} errors, machine ${r.cpu.machineBusyPct} % busy`,
              ),
          },
        );
        if (row) rows.push({ ...row, round });
      }
    }
    const result = await runner.run(
      'scale',
      async () => {
        const analysis = analyse(rows);
        const failing = analysis.summary.filter((s) => s.errors > s.total * MAX_ERROR_SHARE);
        if (failing.length > 0)
          throw new Error(
            `more than 1 % errors with ${failing.map((s) => `${s.count} API (${s.errors}/${s.total})`).join(', ')}`,
          );
        return analysis;
      },
      { print: (analysis) => process.stdout.write(`${lines(analysis).join('\n')}\n`) },
    );
    ok = result !== undefined;
  }
} catch (error) {
  process.stderr.write(`\n[scale] ERROR outside any phase:\n${describeError(error)}\n`);
} finally {
  await ctx?.db.end().catch(() => undefined);
  ctx?.redis.disconnect();
  await stopAll();
}
const allRan = runner.finish();
process.exit(ok && allRan ? 0 : 1);
