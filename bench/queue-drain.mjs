// Queue drain: simulated sessions completed per second by ONE worker (built output), against raw
// BullMQ processing the same number of empty jobs at the same concurrency, in the same run.
//
//   node bench/queue-drain.mjs
//   BENCH_DRAIN_SESSIONS=2000 BENCH_ROUNDS=2 BENCH_DRAIN_STEP_MS=0 BENCH_DRAIN_PROFILE=1 node bench/queue-drain.mjs
//
// Each round (service, then raw, interleaved over BENCH_ROUNDS rounds):
//   service  N sessions created through the API (POST /v1/sessions, autocannon) while no worker
//            runs, so their session.created events wait in the outbox; then one worker starts
//            (SIMULATED_STEP_MS = BENCH_DRAIN_STEP_MS, WORKER_CONCURRENCY as the environment has
//            it, default 50) and relays, schedules and runs them all. Sessions/s from the rows'
//            completed_at over the steady part (10 % to 90 % of the backlog) and first to last;
//            the worker's CPU per session and where the machine's CPU went.
//   raw      N empty jobs added to a queue of their own (the product's job options: attempts,
//            backoff, removeOnComplete), then a plain bullmq Worker in a child process (this file
//            with --raw-worker) with the same concurrency on the same Redis processes them: jobs/s
//            from its completion times, over the same windows.
// Then (BENCH_DRAIN_PROFILE, default on) one more service drain under the V8 CPU profiler
// (bench/cpu-profile-hook.mjs), not counted in the rates, summarised by bench/profile-summary.mjs.
//
// Uses its own database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/sas_bench_drain,
// created and migrated if missing) and Redis prefix (sas-bench-drain), so it never touches
// npm run bench's tables. Results: bench/results/drain/<run>-<phase>.json, <run>-run.json,
// latest.json; the children's logs and the profile beside them. Exit code 1 when a phase failed
// (a session not finished, a job not processed, a process dying).

import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wholeNumber } from './settings.mjs';

const env = process.env;
const STEADY = [0.1, 0.9];
const round = (value, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value)
    ? null
    : Number(value.toFixed(digits));

/** Jobs/s over the steady part and first to last, from sorted completion times (epoch ms). */
function rates(times, total) {
  const sorted = [...times].sort((a, b) => a - b);
  const [low, high] = STEADY.map((share) => Math.floor(share * total));
  const steadyMs = sorted.length > high ? sorted[high] - sorted[low] : null;
  const spanMs = sorted.length > 1 ? sorted.at(-1) - sorted[0] : null;
  return {
    finished: sorted.length,
    steadyPerS: steadyMs ? round(((high - low) * 1000) / steadyMs) : null,
    firstToLastPerS: spanMs ? round(((sorted.length - 1) * 1000) / spanMs) : null,
    spanS: spanMs === null ? null : round(spanMs / 1000, 2),
  };
}

// ------------------------------------------------------------------ the raw worker (child)

async function rawWorker() {
  const { Worker } = await import('bullmq');
  const url = new URL(env.REDIS_URL);
  const times = [];
  const count = Number(env.RAW_COUNT);
  const worker = new Worker(env.RAW_QUEUE, async () => undefined, {
    connection: { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null },
    prefix: env.RAW_PREFIX,
    concurrency: Number(env.RAW_CONCURRENCY),
    autorun: false,
  });
  worker.on('completed', () => {
    times.push(performance.timeOrigin + performance.now());
    if (times.length === count) process.send({ done: times });
  });
  worker.on('error', (error) => process.send({ error: error.message }));
  process.on('message', async (message) => {
    if (message?.cmd === 'stop') {
      await worker.close();
      process.exit(0);
    }
  });
  await worker.waitUntilReady();
  process.send({ ready: true });
  void worker.run();
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--raw-worker') {
  await rawWorker();
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}

// ------------------------------------------------------------------ the bench

async function main() {
  const autocannon = (await import('autocannon')).default;
  const { Queue } = await import('bullmq');
  const { Redis } = await import('ioredis');
  const { describeError } = await import('./errors.mjs');
  const { benchHeader, PhaseRunner } = await import('./phases.mjs');
  const { cpuMs, dependencyPids, findDependencyPids, freePort, machineSnapshot, quietMachine } =
    await import('./machine.mjs');
  const services = await import('./services.mjs');
  const { ROOT, benchOrganization, clearRedisPrefix, logTail, running } = services;

  const RESULTS = join(ROOT, 'bench', 'results', 'drain');
  const CONFIG = {
    databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/sas_bench_drain',
    redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
    redisPrefix: 'sas-bench-drain',
    sessions: wholeNumber('BENCH_DRAIN_SESSIONS', 2000),
    rounds: wholeNumber('BENCH_ROUNDS', 2),
    stepMs: wholeNumber('BENCH_DRAIN_STEP_MS', 0, 0),
    // Left as the environment has it (the worker's default unless set): reported, not chosen.
    concurrency: wholeNumber('WORKER_CONCURRENCY', 50),
    profile: env.BENCH_DRAIN_PROFILE !== '0',
    connections: wholeNumber('BENCH_CONNECTIONS', 50),
    poolMax: wholeNumber('DATABASE_POOL_MAX', 10),
    clientId: 'sas-bench-drain-client',
    clientSecret: 'sas-bench-drain-secret-9b1f3e7a2c6d',
    signingKeySecret: env.SIGNING_KEY_SECRET || 'sas-bench-signing-key-secret-5c1e8a7d3f90b2e4',
    idleMs: 30_000, // a drain with no progress for this long has stalled
    rawQueue: 'empty',
    rawPrefix: 'sas-bench-drain-raw',
  };
  const log = (line) => process.stdout.write(`[drain] ${line}\n`);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const runner = new PhaseRunner({
    dir: RESULTS,
    root: ROOT,
    log,
    header: benchHeader('queue-drain', CONFIG),
  });

  /** Where the CPU went between two snapshots, in % of one core; the machine's other load. */
  const snapshot = (pids) => ({
    at: performance.now(),
    cpu: Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)])),
    machine: machineSnapshot(),
    bench: process.cpuUsage(),
  });
  const between = (a, b) => {
    const wallMs = b.at - a.at;
    const pct = (ms) => Math.round((100 * ms) / wallMs);
    const out = {};
    let own = 0;
    for (const key of Object.keys(a.cpu)) {
      const ms = (b.cpu[key] ?? a.cpu[key]) - a.cpu[key];
      own += ms;
      out[`${key}Pct`] = pct(ms);
      out[`${key}CpuMs`] = Math.round(ms);
    }
    const benchMs = (b.bench.user - a.bench.user + b.bench.system - a.bench.system) / 1000;
    let databasesMs = 0;
    for (const [pid, ms] of b.machine?.databases ?? [])
      databasesMs += ms - (a.machine.databases.get(pid) ?? 0);
    const busyMs = b.machine && a.machine ? b.machine.busyMs - a.machine.busyMs : 0;
    out.postgresAndRedisPct = pct(databasesMs);
    out.benchPct = pct(benchMs);
    out.machineBusyPct = pct(busyMs);
    out.otherPct = Math.max(0, pct(busyMs - own - databasesMs - benchMs));
    return out;
  };

  async function setUp(partial) {
    const port = await freePort();
    const shared = {
      DATABASE_URL: CONFIG.databaseUrl,
      REDIS_URL: CONFIG.redisUrl,
      REDIS_PREFIX: CONFIG.redisPrefix,
      DATABASE_POOL_MAX: String(CONFIG.poolMax),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      NODE_ENV: 'production',
      SIGNING_KEY_SECRET: CONFIG.signingKeySecret,
      LOG_LEVEL: 'warn',
      SIMULATED_STEP_MS: String(CONFIG.stepMs),
      WORKER_CONCURRENCY: String(CONFIG.concurrency),
    };
    const db = await services.prepareDatabase(shared, 'sas-bench-drain', RESULTS);
    await findDependencyPids(db, CONFIG.redisUrl);
    partial.dependencyPids = { ...dependencyPids };
    const redis = new Redis(CONFIG.redisUrl, { maxRetriesPerRequest: 3 });
    await clearRedisPrefix(redis, CONFIG.redisPrefix);
    await clearRedisPrefix(redis, CONFIG.rawPrefix);
    const api = await services.startApi(shared, {
      logDir: RESULTS,
      env: { BOOTSTRAP_CLIENT_ID: CONFIG.clientId, BOOTSTRAP_CLIENT_SECRET: CONFIG.clientSecret },
    });
    const org = await benchOrganization(api.base, CONFIG.clientId, CONFIG.clientSecret);
    partial.api = api.base;
    return { db, redis, api, shared, org };
  }

  /** Nothing left from before: every event relayed, unfinished sessions ended, queues empty. */
  async function quiet(ctx) {
    await ctx.db.query('UPDATE events SET relayed_at = now() WHERE relayed_at IS NULL');
    await ctx.db.query(
      `UPDATE sessions SET status = 'failed', failure_reason = 'cancelled', completed_at = now(),
              updated_at = now() WHERE status IN ('initiated', 'in_progress')`,
    );
    await ctx.db.query('VACUUM (ANALYZE) events, sessions');
    for (const queue of ['events', 'sessions', 'analyses'])
      await clearRedisPrefix(ctx.redis, `${CONFIG.redisPrefix}:${queue}`);
    await clearRedisPrefix(ctx.redis, CONFIG.rawPrefix);
    await quietMachine(30, log);
  }

  async function serviceDrain(ctx, result, { profileFile = null } = {}) {
    await quiet(ctx);
    const since = (await ctx.db.query('SELECT now() AS now')).rows[0].now;
    log(`service: ${CONFIG.sessions} sessions created (POST /v1/sessions), no worker running …`);
    const backlog = await autocannon({
      url: `${ctx.api.base}/v1/sessions`,
      method: 'POST',
      headers: ctx.org.writeHeaders,
      body: JSON.stringify({ type: 'remote_viewing', target: 'Queue drain bench' }),
      connections: Math.min(CONFIG.connections, CONFIG.sessions),
      amount: CONFIG.sessions,
      timeout: 10,
    });
    const count = async (where) =>
      (
        await ctx.db.query(
          `SELECT count(*)::int AS n FROM sessions WHERE created_at >= $1 ${where}`,
          [since],
        )
      ).rows[0].n;
    const created = await count('');
    result.created = created;
    result.createErrors = CONFIG.sessions - backlog['2xx'];
    if (created === 0) throw new Error('no session was created');
    log(`  ${created} sessions in the outbox; starting one worker …`);
    const worker = await services.startWorker(ctx.shared, {
      logDir: RESULTS,
      name: profileFile ? 'worker-profiled' : 'worker',
      ipc: Boolean(profileFile),
      nodeArgs: profileFile ? ['--import', './bench/cpu-profile-hook.mjs'] : [],
    });
    result.workerStartupS = round(worker.startupS, 2);
    const pids = { worker: worker.child.pid, api: ctx.api.child.pid };
    try {
      if (profileFile) await ipcAsk(worker.child, { profile: 'start' }, (m) => m?.profileStarted);
      const start = snapshot(pids);
      let finished = 0;
      let changed = Date.now();
      for (;;) {
        if (!running(worker.child)) throw new Error(`the worker exited:\n${logTail(worker.child)}`);
        const now = await count(`AND status IN ('completed', 'failed')`);
        if (now !== finished) [finished, changed] = [now, Date.now()];
        if (finished >= created || Date.now() - changed > CONFIG.idleMs) break;
        await sleep(100);
      }
      const end = snapshot(pids);
      if (profileFile) {
        await ipcAsk(
          worker.child,
          { profile: 'stop', file: profileFile },
          (m) => m?.profileWritten,
        );
        writeFileSync(
          profileFile.replace(/\.cpuprofile$/, '.json'),
          JSON.stringify({ requests: finished }),
        );
      }
      const { rows } = await ctx.db.query(
        `SELECT status, count(*)::int AS n FROM sessions WHERE created_at >= $1 GROUP BY status`,
        [since],
      );
      result.statuses = Object.fromEntries(rows.map((r) => [r.status, r.n]));
      const times = (
        await ctx.db.query(
          `SELECT (extract(epoch FROM completed_at) * 1000)::float8 AS t FROM sessions
            WHERE created_at >= $1 AND completed_at IS NOT NULL`,
          [since],
        )
      ).rows.map((r) => r.t);
      const events = (
        await ctx.db.query(
          `SELECT count(*)::int AS n FROM events WHERE created_at >= $1 AND type LIKE 'session.%'`,
          [since],
        )
      ).rows[0].n;
      Object.assign(result, rates(times, created));
      result.eventsPerSession = round(events / created, 2);
      result.cpu = between(start, end);
      result.workerCpuMsPerSession = round(result.cpu.workerCpuMs / Math.max(1, finished), 3);
      if ((result.statuses.completed ?? 0) < created)
        throw new Error(
          `not every session completed: ${JSON.stringify(result.statuses)} (see ${worker.child.logFile})`,
        );
      return result;
    } finally {
      await services.stopChild(worker.child);
    }
  }

  function ipcAsk(child, message, match, timeoutMs = 60_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to ${JSON.stringify(message)}`)),
        timeoutMs,
      );
      const listener = (answer) => {
        if (!match(answer)) return;
        clearTimeout(timer);
        child.off('message', listener);
        resolve(answer);
      };
      child.on('message', listener);
      child.send(message);
    });
  }

  async function rawDrain(ctx, result) {
    await quiet(ctx);
    const url = new URL(CONFIG.redisUrl);
    const connection = { host: url.hostname, port: Number(url.port || 6379) };
    const queue = new Queue(CONFIG.rawQueue, { connection, prefix: CONFIG.rawPrefix });
    // The product's default job options (libs/queue/src/queue.module.ts).
    const opts = {
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: 24 * 3600, count: 100_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    };
    for (let i = 0; i < CONFIG.sessions; i += 1000) {
      const size = Math.min(1000, CONFIG.sessions - i);
      await queue.addBulk(
        Array.from({ length: size }, (_, j) => ({
          name: 'run',
          data: { n: i + j },
          opts: { ...opts, jobId: `raw-${i + j}` },
        })),
      );
    }
    await queue.close();
    log(
      `raw: ${CONFIG.sessions} empty jobs queued; a plain bullmq Worker (concurrency ${CONFIG.concurrency}) drains them …`,
    );
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--raw-worker'], {
      cwd: ROOT,
      env: {
        PATH: env.PATH,
        REDIS_URL: CONFIG.redisUrl,
        RAW_QUEUE: CONFIG.rawQueue,
        RAW_PREFIX: CONFIG.rawPrefix,
        RAW_CONCURRENCY: String(CONFIG.concurrency),
        RAW_COUNT: String(CONFIG.sessions),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      const messages = [];
      const finished = new Promise((resolve, reject) => {
        child.on('message', (m) => {
          messages.push(m);
          if (m?.done) resolve(m.done);
        });
        child.once('exit', (code) => reject(new Error(`the raw worker exited (${code})`)));
      });
      finished.catch(() => undefined);
      while (!messages.some((m) => m?.ready)) {
        if (child.exitCode !== null) throw new Error('the raw worker exited before it was ready');
        await sleep(20);
      }
      const start = snapshot({ worker: child.pid });
      const times = await Promise.race([
        finished,
        sleep(10 * 60_000).then(() => {
          throw new Error('raw drain: not done within 10 minutes');
        }),
      ]);
      const end = snapshot({ worker: child.pid });
      Object.assign(result, rates(times, CONFIG.sessions));
      result.cpu = between(start, end);
      result.workerCpuMsPerJob = round(result.cpu.workerCpuMs / CONFIG.sessions, 3);
      const errors = messages.filter((m) => m?.error);
      if (errors.length > 0) result.workerErrors = errors.map((m) => m.error).slice(0, 5);
      return result;
    } finally {
      child.send?.({ cmd: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      clearTimeout(timer);
    }
  }

  const median = (values) => {
    const sorted = values.filter((v) => v !== null).sort((a, b) => a - b);
    if (sorted.length === 0) return null;
    const mid = Math.floor(sorted.length / 2);
    return round(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2, 3);
  };

  const printRound = (kind) => (r) =>
    log(
      `  ${kind}: ${r.finished} done, steady ${r.steadyPerS}/s, first to last ${r.firstToLastPerS}/s over ${r.spanS} s; ` +
        `worker ${r.cpu.workerPct} % of a core (${kind.startsWith('service') ? r.workerCpuMsPerSession : r.workerCpuMsPerJob} ms CPU each)` +
        (kind.startsWith('service') ? `, API ${r.cpu.apiPct} %` : '') +
        `, PostgreSQL+Redis ${r.cpu.postgresAndRedisPct} %, other ${r.cpu.otherPct} %, machine ${r.cpu.machineBusyPct} % of one core` +
        (kind.startsWith('service') ? `; ${r.eventsPerSession} events per session` : ''),
    );

  const stopEverything = async () => services.stopAll();
  process.once('SIGINT', () => stopEverything().finally(() => process.exit(130)));

  let ctx = null;
  let ok = false;
  try {
    ctx = await runner.run('setup', setUp, { fatal: true, toJson: (c) => ({ api: c.api.base }) });
    if (ctx) {
      const service = [];
      const raw = [];
      for (let r = 1; r <= CONFIG.rounds; r++) {
        const s = await runner.run(`service-${r}`, (partial) => serviceDrain(ctx, partial), {
          print: printRound('service'),
        });
        if (s) service.push(s);
        const b = await runner.run(`raw-bullmq-${r}`, (partial) => rawDrain(ctx, partial), {
          print: printRound('raw'),
        });
        if (b) raw.push(b);
      }
      let profile = null;
      if (CONFIG.profile) {
        const file = join(RESULTS, `${runner.stamp}-worker.cpuprofile`);
        profile = await runner.run(
          'service-profiled',
          async (partial) => {
            await serviceDrain(ctx, partial, { profileFile: file });
            const summary = await new Promise((resolve, reject) => {
              const child = spawn(process.execPath, ['bench/profile-summary.mjs', file, '15'], {
                cwd: ROOT,
              });
              let out = '';
              child.stdout.on('data', (chunk) => (out += chunk));
              child.once('exit', (code) =>
                code === 0 ? resolve(out) : reject(new Error(`profile-summary exit ${code}`)),
              );
            });
            partial.profile = file;
            partial.summary = summary;
            return partial;
          },
          {
            print: (r) => {
              printRound('service (profiled)')(r);
              process.stdout.write(
                `\nWhere the worker's time went (${r.profile}):\n${r.summary}\n`,
              );
            },
            toJson: (r) => r,
          },
        );
      }
      const result = await runner.run(
        'queue-drain',
        async () => {
          if (service.length === 0 || raw.length === 0)
            throw new Error('no complete round to compare');
          const servicePerS = median(service.map((s) => s.steadyPerS));
          const rawPerS = median(raw.map((s) => s.steadyPerS));
          return {
            sessions: CONFIG.sessions,
            concurrency: CONFIG.concurrency,
            stepMs: CONFIG.stepMs,
            servicePerS,
            rawPerS,
            ratio: round(servicePerS / rawPerS, 3),
            serviceRounds: service.map((s) => s.steadyPerS),
            rawRounds: raw.map((s) => s.steadyPerS),
            serviceFirstToLast: median(service.map((s) => s.firstToLastPerS)),
            rawFirstToLast: median(raw.map((s) => s.firstToLastPerS)),
            workerCpuMsPerSession: median(service.map((s) => s.workerCpuMsPerSession)),
            rawCpuMsPerJob: median(raw.map((s) => s.workerCpuMsPerJob)),
            eventsPerSession: median(service.map((s) => s.eventsPerSession)),
            otherLoadPct: service.concat(raw).map((s) => s.cpu.otherPct),
            profiled: profile ? profile.steadyPerS : null,
          };
        },
        {
          print: (r) =>
            process.stdout.write(
              `\nQueue drain, ${r.sessions} per round, concurrency ${r.concurrency}, SIMULATED_STEP_MS=${r.stepMs}, medians of ${CONFIG.rounds} rounds (steady 10–90 %):\n` +
                `  service (one worker): ${r.servicePerS} sessions/s  (rounds ${r.serviceRounds.join(', ')}; first to last ${r.serviceFirstToLast}/s; ${r.workerCpuMsPerSession} ms worker CPU and ${r.eventsPerSession} events per session)\n` +
                `  raw BullMQ, empty jobs: ${r.rawPerS} jobs/s  (rounds ${r.rawRounds.join(', ')}; first to last ${r.rawFirstToLast}/s; ${r.rawCpuMsPerJob} ms worker CPU per job)\n` +
                `  ratio service ÷ raw: ${r.ratio}×; other load on the machine per drain: ${r.otherLoadPct.join(', ')} % of a core\n`,
            ),
        },
      );
      ok = result !== undefined;
    }
  } catch (error) {
    process.stderr.write(`\n[drain] ERROR outside any phase:\n${describeError(error)}\n`);
  } finally {
    await ctx?.db.end().catch(() => undefined);
    ctx?.redis.disconnect();
    await stopEverything();
  }
  const allRan = runner.finish();
  process.exit(ok && allRan ? 0 : 1);
}
