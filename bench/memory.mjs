// Memory: the API's and the worker's resident memory (built output) over 500,000 requests and
// 100,000 webhook deliveries. Flat means: RSS at the end and at its highest within 10 % of RSS
// after the warm-up.
//
//   node bench/memory.mjs
//   BENCH_MEMORY_REQUESTS=50000 BENCH_MEMORY_DELIVERIES=10000 node bench/memory.mjs   (a quick check)
//   BENCH_MEMORY_SNAPSHOTS=1 node bench/memory.mjs   (heap snapshots after the warm-up and at the end)
//   BENCH_MEMORY_WORKER_FLAGS="--max-old-space-size=160" node bench/memory.mjs   (node flags for the worker)
//
// 1. Starts the API and one worker, each with bench/memory-hook.mjs preloaded (node --import,
//    --expose-gc, an IPC channel), and bench/webhook-receiver.mjs (HTTPS, a throwaway CA the worker
//    trusts through WEBHOOK_EXTRA_CA_FILE); registers BENCH_MEMORY_ENDPOINTS (4) webhooks for
//    session.created on the receiver. As in npm run bench's webhook phase, the worker runs one
//    session at a time with 10-minute steps, so its work is the event pipeline (relay, fan-out,
//    delivery), and a completer ends the sessions every second (as npm run bench does), so the
//    creates' concurrent-session count stays small.
// 2. Warm-up: a tenth of the requests (at most 50,000) of the same mix, and their deliveries.
// 3. The load: BENCH_MEMORY_REQUESTS (500,000) requests with autocannon (BENCH_CONNECTIONS, 50):
//    authenticated reads (GET /v1/sessions/{id}) and, every so many, a create (POST /v1/sessions)
//    — as many creates as make BENCH_MEMORY_DELIVERIES (100,000) deliveries to the endpoints —
//    then waits until every delivery arrived.
// Throughout, every second: VmRSS of the API, the worker and the receiver (/proc/<pid>/status),
// and the API's and worker's JS heap (process.memoryUsage over IPC). After the warm-up and at the
// end: the heap after a full GC (the live objects) — so a growth can be told apart as live JS
// objects (a leak), V8's heap headroom, or memory outside the JS heap.
//
// Its own database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/sas_bench_memory,
// created and migrated if missing) and Redis prefix (sas-bench-memory). Results:
// bench/results/memory/<run>-<phase>.json (the samples included), <run>-run.json, latest.json;
// logs and snapshots beside them. Exit code 1 when a phase failed (a process dying, more than
// 1 % failed requests, deliveries missing); a process that is not flat is reported, not failed.

import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { describeError } from './errors.mjs';
import { findDependencyPids, freePort, quietMachine, rssKb, machineSnapshot } from './machine.mjs';
import { benchHeader, PhaseRunner } from './phases.mjs';
import * as services from './services.mjs';
import { createCertificates } from './webhook-receiver.mjs';
import { wholeNumber } from './settings.mjs';

const { ROOT, running, logTail } = services;
const RESULTS = join(ROOT, 'bench', 'results', 'memory');
const env = process.env;

const CONFIG = {
  databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/sas_bench_memory',
  redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
  redisPrefix: 'sas-bench-memory',
  requests: wholeNumber('BENCH_MEMORY_REQUESTS', 500_000),
  deliveries: wholeNumber('BENCH_MEMORY_DELIVERIES', 100_000),
  endpoints: wholeNumber('BENCH_MEMORY_ENDPOINTS', 4),
  connections: wholeNumber('BENCH_CONNECTIONS', 50),
  poolMax: wholeNumber('DATABASE_POOL_MAX', 10),
  snapshots: env.BENCH_MEMORY_SNAPSHOTS === '1',
  // Node flags for the worker only (e.g. "--max-old-space-size=160"), to see what bounds its RSS.
  workerFlags: (env.BENCH_MEMORY_WORKER_FLAGS ?? '').split(' ').filter(Boolean),
  clientId: 'sas-bench-memory-client',
  clientSecret: 'sas-bench-memory-secret-2e8c5a1f7b3d',
  signingKeySecret: env.SIGNING_KEY_SECRET || 'sas-bench-signing-key-secret-5c1e8a7d3f90b2e4',
  flatShare: 0.1, // flat = within 10 %
  idleMs: 60_000, // deliveries stalled: none arrived for this long
  maxWaitMs: 30 * 60_000,
};
CONFIG.warmupRequests = Math.min(50_000, Math.ceil(CONFIG.requests / 10));
const MB = 1024;
const round = (value, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value)
    ? null
    : Number(value.toFixed(digits));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line) => process.stdout.write(`[memory] ${line}\n`);

// ------------------------------------------------------------------ IPC with the hooked processes

function ipc(child) {
  let next = 0;
  const pending = new Map();
  child.on('message', (message) => {
    const resolve = pending.get(message?.id);
    if (resolve) {
      pending.delete(message.id);
      resolve(message);
    }
  });
  return (message, timeoutMs = 60_000) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${child.benchName}: no answer to ${message.memory} in ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      child.send({ ...message, id });
    });
}

/** bench/webhook-receiver.mjs as a child: reset() forgets what came, wait(count) waits for it. */
async function startReceiver(certs) {
  const child = services.startNode(
    'webhook-receiver',
    ['bench/webhook-receiver.mjs'],
    { BENCH_RECEIVER_CERT: certs.certPem, BENCH_RECEIVER_KEY: certs.keyPem },
    { logDir: RESULTS, ipc: true },
  );
  const once = (match) =>
    new Promise((resolve, reject) => {
      const listener = (message) => {
        if (!match(message)) return;
        child.off('message', listener);
        resolve(message);
      };
      child.on('message', listener);
      child.exited.then(() => reject(new Error(`the receiver exited:\n${logTail(child)}`)));
    });
  const { ready: port } = await once((m) => m?.ready);
  let waitId = 0;
  return {
    child,
    base: `https://127.0.0.1:${port}`,
    async reset() {
      const ack = once((m) => m?.reset);
      child.send({ cmd: 'reset' });
      await ack;
    },
    async wait(count) {
      const id = ++waitId;
      const answer = once((m) => m?.id === id);
      child.send({ cmd: 'wait', id, count, idleMs: CONFIG.idleMs, maxMs: CONFIG.maxWaitMs });
      const { result } = await answer;
      delete result.latencies; // 100,000 numbers nobody reads here
      delete result.samples;
      return result;
    },
  };
}

// ------------------------------------------------------------------ the bench

async function setUp(partial) {
  const port = await freePort();
  const certs = await createCertificates();
  const caFile = join(RESULTS, 'webhook-ca.pem');
  const shared = {
    DATABASE_URL: CONFIG.databaseUrl,
    REDIS_URL: CONFIG.redisUrl,
    REDIS_PREFIX: CONFIG.redisPrefix,
    DATABASE_POOL_MAX: String(CONFIG.poolMax),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    NODE_ENV: 'production',
    SIGNING_KEY_SECRET: CONFIG.signingKeySecret,
    LOG_LEVEL: 'warn',
    WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
  };
  const db = await services.prepareDatabase(shared, 'sas-bench-memory', RESULTS);
  await findDependencyPids(db, CONFIG.redisUrl);
  // A fresh start: this database is the bench's own.
  await db.query('TRUNCATE sessions, events, webhooks, webhook_deliveries, webhook_attempts');
  const redis = new Redis(CONFIG.redisUrl, { maxRetriesPerRequest: 3 });
  await services.clearRedisPrefix(redis, CONFIG.redisPrefix);
  writeFileSync(caFile, certs.caPem);
  const hooked = { nodeArgs: ['--expose-gc', '--import', './bench/memory-hook.mjs'], ipc: true };
  const receiver = await startReceiver(certs);
  const api = await services.startApi(shared, {
    logDir: RESULTS,
    ...hooked,
    env: { BOOTSTRAP_CLIENT_ID: CONFIG.clientId, BOOTSTRAP_CLIENT_SECRET: CONFIG.clientSecret },
  });
  const org = await services.benchOrganization(api.base, CONFIG.clientId, CONFIG.clientSecret);
  const webhooks = [];
  for (let i = 1; i <= CONFIG.endpoints; i++) {
    const created = await services.request(api.base, 'POST', '/v1/webhooks', {
      headers: org.writeHeaders,
      body: JSON.stringify({ url: `${receiver.base}/hooks/${i}`, events: ['session.created'] }),
    });
    if (created.status !== 201)
      throw new Error(`webhook ${i}: HTTP ${created.status} ${created.text.slice(0, 300)}`);
    webhooks.push(created.json.webhook_id);
  }
  const seed = await services.request(api.base, 'POST', '/v1/sessions', {
    headers: org.writeHeaders,
    body: JSON.stringify({ type: 'remote_viewing', target: 'Memory bench seed' }),
  });
  if (seed.status !== 201) throw new Error(`seed session: HTTP ${seed.status} ${seed.text}`);
  const worker = await services.startWorker(shared, {
    logDir: RESULTS,
    ...hooked,
    nodeArgs: [...CONFIG.workerFlags, ...hooked.nodeArgs],
    env: {
      // The event pipeline's work, not the simulated sessions' (as npm run bench's webhook phase).
      WORKER_CONCURRENCY: '1',
      SIMULATED_STEP_MS: '600000',
      WEBHOOK_EXTRA_CA_FILE: caFile,
    },
  });
  Object.assign(partial, { api: api.base, receiver: receiver.base, webhooks });
  return {
    db,
    redis,
    api,
    worker: worker.child,
    receiver,
    org,
    readPath: `/v1/sessions/${seed.json.session_id}`,
    ask: { api: ipc(api.child), worker: ipc(worker.child) },
  };
}

/** Every second: VmRSS of each process and the JS heap of the API and the worker. */
function startSampler(ctx) {
  const samples = [];
  const started = performance.now();
  const machineStart = machineSnapshot();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = round((performance.now() - started) / 1000, 1);
      const sample = {
        t: at,
        apiRssKb: rssKb(ctx.api.child.pid),
        workerRssKb: rssKb(ctx.worker.pid),
        receiverRssKb: rssKb(ctx.receiver.child.pid),
      };
      const heaps = await Promise.all(
        ['api', 'worker'].map((name) =>
          ctx.ask[name]({ memory: 'usage' }, 5_000).then(
            (m) => m.memoryUsage,
            () => null,
          ),
        ),
      );
      sample.apiHeapUsedKb = heaps[0] ? Math.round(heaps[0].heapUsed / 1024) : null;
      sample.workerHeapUsedKb = heaps[1] ? Math.round(heaps[1].heapUsed / 1024) : null;
      sample.apiHeapTotalKb = heaps[0] ? Math.round(heaps[0].heapTotal / 1024) : null;
      sample.workerHeapTotalKb = heaps[1] ? Math.round(heaps[1].heapTotal / 1024) : null;
      // Memory V8 is told about outside its heap (Buffers, native objects bound to JS ones).
      sample.apiExternalKb = heaps[0] ? Math.round(heaps[0].external / 1024) : null;
      sample.workerExternalKb = heaps[1] ? Math.round(heaps[1].external / 1024) : null;
      samples.push(sample);
      await sleep(Math.max(0, 1000 - ((performance.now() - started) % 1000)));
    }
  })();
  return {
    samples,
    mark: () => samples.length,
    async stop() {
      stopped = true;
      await loop;
      const machineEnd = machineSnapshot();
      return machineStart && machineEnd
        ? {
            machineBusyPct: Math.round(
              (100 * (machineEnd.busyMs - machineStart.busyMs)) / (performance.now() - started),
            ),
          }
        : {};
    },
  };
}

/** After a full GC, what each process's memory is made of (and a heap snapshot if asked). */
async function heapAfterGc(ctx, label) {
  const out = {};
  for (const name of ['api', 'worker']) {
    const answer = await ctx.ask[name]({ memory: 'gc' });
    const m = answer.memoryUsage;
    out[name] = {
      rssMb: round(m.rss / 2 ** 20),
      heapUsedMb: round(m.heapUsed / 2 ** 20),
      heapTotalMb: round(m.heapTotal / 2 ** 20),
      externalMb: round(m.external / 2 ** 20),
      arrayBuffersMb: round(m.arrayBuffers / 2 ** 20),
      outsideHeapMb: round((m.rss - m.heapTotal) / 2 ** 20),
      spaces: Object.fromEntries(
        answer.heapSpaces.map((s) => [s.space, round(s.used / 2 ** 20, 2)]),
      ),
    };
    if (CONFIG.snapshots) {
      const file = join(RESULTS, `${name}-${label}.heapsnapshot`);
      await ctx.ask[name]({ memory: 'snapshot', file }, 300_000);
      out[name].snapshot = file;
    }
  }
  return out;
}

/** Requests of the mix: `creates` of `total` are POST /v1/sessions, spread evenly, the rest reads. */
async function load(ctx, total, creates) {
  const every = Math.max(1, Math.floor(total / Math.max(1, creates)));
  const read = { method: 'GET', path: ctx.readPath, headers: ctx.org.readHeaders };
  const create = {
    method: 'POST',
    path: '/v1/sessions',
    headers: ctx.org.writeHeaders,
    body: JSON.stringify({ type: 'remote_viewing', target: 'Memory bench' }),
  };
  const started = performance.now();
  const result = await autocannon({
    url: ctx.api.base,
    connections: CONFIG.connections,
    amount: total,
    timeout: 30,
    requests: [...Array.from({ length: every - 1 }, () => read), create],
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    requests: result.requests.total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: round(seconds),
    requestsPerS: round(result.requests.total / seconds),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    createEvery: every,
  };
}

/** Ends the bench's sessions every second, standing in for a worker that runs them. */
function startCompleter(db) {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await db
        .query(
          `UPDATE sessions SET status = 'failed', failure_reason = 'cancelled', completed_at = now(),
                  updated_at = now()
            WHERE status IN ('initiated', 'in_progress') AND created_at < now() - interval '1 second'`,
        )
        .catch(() => undefined);
      await sleep(1000);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

async function sessionCount(db) {
  return (await db.query('SELECT count(*)::int AS n FROM sessions')).rows[0].n;
}

/** One stage of load: the requests, then every delivery of its creates. */
async function stage(ctx, name, total, creates, result) {
  const before = await sessionCount(ctx.db);
  await ctx.receiver.reset();
  log(
    `${name}: ${total.toLocaleString('en')} requests (a create every ${Math.max(1, Math.floor(total / Math.max(1, creates)))}), ${CONFIG.connections} connections …`,
  );
  result.load = await load(ctx, total, creates);
  const created = (await sessionCount(ctx.db)) - before;
  const expected = created * CONFIG.endpoints;
  log(
    `  ${result.load.requests} requests in ${result.load.seconds} s (${result.load.requestsPerS}/s, p99 ${result.load.latencyMs.p99} ms); waiting for ${expected.toLocaleString('en')} deliveries …`,
  );
  const started = performance.now();
  result.deliveries = await ctx.receiver.wait(expected);
  result.deliveries.expected = expected;
  result.deliveries.waitedAfterLoadS = round((performance.now() - started) / 1000);
  const problems = [];
  const failed = result.load.non2xx + result.load.errors + result.load.timeouts;
  if (failed > result.load.requests * 0.01)
    problems.push(`${failed} of ${result.load.requests} requests failed`);
  if (result.deliveries.count < expected)
    problems.push(
      `${result.deliveries.count} of ${expected} deliveries arrived (${result.deliveries.ended})`,
    );
  for (const child of [ctx.api.child, ctx.worker])
    if (!running(child)) problems.push(`${child.benchName} exited:\n${logTail(child)}`);
  if (problems.length > 0) throw new Error(`${name}: ${problems.join('; ')}`);
  return result;
}

function summary(samples, warmupEnd) {
  const out = {};
  for (const name of ['api', 'worker', 'receiver']) {
    const after = samples
      .slice(warmupEnd)
      .map((s) => s[`${name}RssKb`])
      .filter((v) => v !== null);
    if (after.length === 0) continue;
    const warm = samples[warmupEnd - 1]?.[`${name}RssKb`] ?? after[0];
    const end = after.at(-1);
    const max = Math.max(...after);
    // Growth that goes on is a leak; growth that stopped was a longer warm-up: the second half.
    const half = after[Math.floor(after.length / 2)];
    out[name] = {
      warmupRssMb: round(warm / MB),
      halfwayRssMb: round(half / MB),
      endRssMb: round(end / MB),
      maxRssMb: round(max / MB),
      endRatio: round(end / warm, 3),
      maxRatio: round(max / warm, 3),
      secondHalfRatio: round(end / half, 3),
      flat: end / warm <= 1 + CONFIG.flatShare && max / warm <= 1 + CONFIG.flatShare,
    };
  }
  return out;
}

function lines(result) {
  const out = [
    '',
    `Resident memory over ${result.requests.toLocaleString('en')} requests and ${result.deliveries.toLocaleString('en')} webhook deliveries (after a warm-up of ${CONFIG.warmupRequests.toLocaleString('en')}); flat = end and max within ${CONFIG.flatShare * 100} % of after warm-up:`,
    '  process    after warm-up  halfway     end      max   end/warm  max/warm  flat  end/halfway',
  ];
  for (const [name, r] of Object.entries(result.rss))
    out.push(
      `  ${name.padEnd(9)} ${String(r.warmupRssMb).padStart(9)} MB ${String(r.halfwayRssMb).padStart(6)} MB ${String(r.endRssMb).padStart(6)} MB ${String(r.maxRssMb).padStart(6)} MB ${r.endRatio.toFixed(3).padStart(8)}× ${r.maxRatio.toFixed(3).padStart(8)}×  ${name === 'receiver' ? '  — ' : r.flat ? ' yes' : '  NO'}  ${r.secondHalfRatio.toFixed(3).padStart(8)}×`,
    );
  out.push('  heap after a full GC (live JS objects), after warm-up → end:');
  for (const name of ['api', 'worker']) {
    const [a, b] = [result.heapAfterWarmup[name], result.heapAtEnd[name]];
    out.push(
      `    ${name.padEnd(7)} heap used ${a.heapUsedMb} → ${b.heapUsedMb} MB, heap total ${a.heapTotalMb} → ${b.heapTotalMb} MB, external ${a.externalMb} → ${b.externalMb} MB, RSS outside the JS heap ${a.outsideHeapMb} → ${b.outsideHeapMb} MB`,
    );
  }
  out.push(
    `  load: ${result.loadRequestsPerS} requests/s; machine ${result.machineBusyPct} % busy (of one core; ${os.availableParallelism()} cores)`,
  );
  return out;
}

const runner = new PhaseRunner({
  dir: RESULTS,
  root: ROOT,
  log,
  header: benchHeader('memory', CONFIG),
});
process.once('SIGINT', () => services.stopAll().finally(() => process.exit(130)));

let ok = false;
let ctx = null;
let stopCompleter = null;
let sampler = null;
try {
  ctx = await runner.run('setup', setUp, { fatal: true, toJson: (c) => ({ api: c.api.base }) });
  if (ctx) {
    stopCompleter = startCompleter(ctx.db);
    await quietMachine(30, log);
    sampler = startSampler(ctx);
    const creates = (total) =>
      Math.ceil(CONFIG.deliveries / CONFIG.endpoints) * (total / CONFIG.requests);
    const warm = await runner.run('warm-up', (partial) =>
      stage(
        ctx,
        'warm-up',
        CONFIG.warmupRequests,
        Math.ceil(creates(CONFIG.warmupRequests)),
        partial,
      ),
    );
    // The baseline is the last sample before the forced GC, which would lower what follows.
    const warmupEnd = sampler.mark();
    const heapAfterWarmup = warm ? await heapAfterGc(ctx, 'after-warmup') : null;
    const main = await runner.run(
      'load',
      (partial) =>
        stage(
          ctx,
          'load',
          CONFIG.requests,
          Math.ceil(CONFIG.deliveries / CONFIG.endpoints),
          partial,
        ),
      {
        printPartial: (partial) => log(JSON.stringify(partial)),
      },
    );
    await sleep(2_000); // a last sample or two after the deliveries
    const machine = await sampler.stop();
    const result = await runner.run(
      'memory',
      async (partial) => {
        partial.rss = summary(sampler.samples, warmupEnd);
        partial.samples = sampler.samples;
        partial.heapAfterWarmup = heapAfterWarmup;
        partial.heapAtEnd = await heapAfterGc(ctx, 'end');
        if (!main) throw new Error('the load phase failed: its RSS figures are what it reached');
        return {
          ...partial,
          requests: main.load.requests,
          deliveries: main.deliveries.count,
          loadRequestsPerS: main.load.requestsPerS,
          ...machine,
        };
      },
      {
        print: (r) => process.stdout.write(`${lines(r).join('\n')}\n`),
        printPartial: (p) => log(JSON.stringify({ rss: p.rss })),
      },
    );
    ok = result !== undefined;
  }
} catch (error) {
  process.stderr.write(`\n[memory] ERROR outside any phase:\n${describeError(error)}\n`);
} finally {
  await sampler?.stop().catch(() => undefined);
  await stopCompleter?.();
  await ctx?.db.end().catch(() => undefined);
  ctx?.redis.disconnect();
  await services.stopAll();
}
const allRan = runner.finish();
process.exit(ok && allRan ? 0 : 1);
