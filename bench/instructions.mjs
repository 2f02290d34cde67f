// Instructions per request: the API (built) and bench/reference-server.mjs, each run under
// valgrind's callgrind, which counts the instructions a process executes. Unlike seconds, the
// count does not depend on what else the machine is doing or how fast it is today, so two builds
// can be compared in one run each, without interleaved rounds.
//
//   npm run bench:instructions
//   BENCH_INSTRUCTION_REQUESTS=300 BENCH_INSTRUCTION_WARMUP=2000 node bench/instructions.mjs
//   BENCH_INSTRUCTION_TOKEN_CACHE=off node bench/instructions.mjs   (both verify every token)
//
// For each operation (a session read with a JWT, the same read with an API key, a session create)
// and each server: BENCH_INSTRUCTION_WARMUP requests with callgrind's instrumentation off (the JIT
// settles; valgrind still runs the process, several times slower), then BENCH_INSTRUCTION_WINDOWS
// windows of BENCH_INSTRUCTION_REQUESTS requests one after the other on one keep-alive connection,
// each window bracketed by `callgrind_control --zero` and `--dump`. A window's count covers every
// thread of the server's process (V8's compiler and GC threads, libuv's pool) and nothing of
// PostgreSQL's, Redis's or this client's. Instructions per request = the window's count ÷ its
// requests; the windows' spread says how repeatable it was.
//
// Uses its own database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/sas_bench_instr,
// created and migrated if missing) and Redis prefix (sas-bench-instr). Results:
// bench/results/instructions/<run>-<phase>.json, <run>-run.json, latest.json, the servers' logs
// and callgrind's dumps beside them. Exit code 1 when a phase failed (a server not starting, a
// non-2xx answer, callgrind_control failing); what was measured before is printed and kept.

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'undici';
import { freePort } from './machine.mjs';
import { benchHeader, PhaseRunner } from './phases.mjs';
import {
  ROOT,
  benchOrganization,
  prepareDatabase,
  request,
  startProcess,
  stopAll,
  waitReady,
} from './services.mjs';
import { median, wholeNumber } from './settings.mjs';

const env = process.env;
// BENCH_INSTRUCTION_RESULTS: another directory, for two runs at once (it is emptied first).
const RESULTS = env.BENCH_INSTRUCTION_RESULTS || join(ROOT, 'bench', 'results', 'instructions');
const CONFIG = {
  databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/sas_bench_instr',
  redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
  redisPrefix: env.REDIS_PREFIX || 'sas-bench-instr',
  requests: wholeNumber('BENCH_INSTRUCTION_REQUESTS', 300),
  warmup: wholeNumber('BENCH_INSTRUCTION_WARMUP', 2000),
  windows: wholeNumber('BENCH_INSTRUCTION_WINDOWS', 2),
  // off: the API and the reference verify every token (ACCESS_TOKEN_CACHE_ENTRIES=0, REFERENCE_TOKEN_CACHE=off).
  tokenCache: env.BENCH_INSTRUCTION_TOKEN_CACHE !== 'off',
  clientId: 'sas-bench-instr-client',
  clientSecret: 'sas-bench-instr-secret-4d8e2a6c1f9b',
  signingKeySecret: env.SIGNING_KEY_SECRET || 'sas-bench-signing-key-secret-5c1e8a7d3f90b2e4',
  // V8 without background threads (compilers, GC helpers): the same work, on one thread, so the
  // count depends less on how threads interleave. BENCH_INSTRUCTION_NODE_ARGS='' runs node as is.
  nodeArgs: (env.BENCH_INSTRUCTION_NODE_ARGS ?? '--single-threaded').split(' ').filter(Boolean),
  // Under valgrind a start-up takes minutes on a loaded machine.
  startupMs: 15 * 60_000,
};
const CREATE_BODY = JSON.stringify({
  type: 'remote_viewing',
  target: 'The object in the sealed envelope #4711',
});
/** Self-modifying code (V8's JIT) must be seen; instrumentation waits for the first window. */
const VALGRIND = ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no'];

const log = (line) => process.stdout.write(`[instructions] ${line}\n`);
const run = promisify(execFile);
const callgrind = (pid, ...args) => run('callgrind_control', [...args, String(pid)]);

/** A built server under callgrind (on childEnv.PORT, else a free port), its dumps as `<name>.<pid>.out.<n>` in RESULTS. */
async function startCounted(name, script, childEnv, readyPath) {
  const port = childEnv.PORT ?? String(await freePort());
  const child = startProcess(
    name,
    'valgrind',
    [
      ...VALGRIND,
      `--callgrind-out-file=${join(RESULTS, `${name}.%p.out`)}`,
      process.execPath,
      ...CONFIG.nodeArgs,
      // A full collection before each window (bench/memory-hook.mjs, over IPC): every window
      // starts from the same heap, so whether a major collection falls inside it does not vary.
      '--expose-gc',
      '--import',
      './bench/memory-hook.mjs',
      script,
    ],
    { ...childEnv, PORT: port },
    { logDir: RESULTS, ipc: true },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${base}${readyPath}`, child, CONFIG.startupMs);
  return { name, child, base, pool: new Pool(base, { connections: 4, pipelining: 1 }) };
}

/** A full garbage collection in `server`, answered when done. */
function collectGarbage(server) {
  const id = `gc-${Math.random()}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${server.name}: no answer to gc`)), 120_000);
    const onMessage = (message) => {
      if (message?.id !== id) return;
      clearTimeout(timer);
      server.child.off('message', onMessage);
      if (message.collected) resolve();
      else reject(new Error(`${server.name}: gc is not exposed`));
    };
    server.child.on('message', onMessage);
    server.child.send({ memory: 'gc', id });
  });
}

/** The count of the newest dump of `server`. */
function lastDump(server) {
  const prefix = `${server.name}.${server.child.pid}.out.`;
  const newest = readdirSync(RESULTS)
    .filter((file) => file.startsWith(prefix))
    .map((file) => Number(file.slice(prefix.length)))
    .filter(Number.isInteger)
    .sort((a, b) => a - b)
    .at(-1);
  if (newest === undefined) throw new Error(`callgrind wrote no dump for ${server.name}`);
  const text = readFileSync(join(RESULTS, `${prefix}${newest}`), 'utf8');
  const summary = /^(?:summary|totals): (\d+)/m.exec(text);
  if (!summary) throw new Error(`no summary line in ${prefix}${newest}`);
  return Number(summary[1]);
}

/** One request on `pool`; throws on anything but 2xx, naming what came back. */
async function send(pool, operation) {
  const answer = await pool.request({
    method: operation.method,
    path: operation.path,
    headers: operation.headers,
    body: operation.body,
  });
  const text = await answer.body.text();
  if (answer.statusCode < 200 || answer.statusCode > 299)
    throw new Error(`${operation.label}: HTTP ${answer.statusCode} ${text.slice(0, 300)}`);
}

/** `count` requests, `lanes` at a time. */
async function load(pool, operation, count, lanes) {
  let left = count;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (left > 0) {
        left -= 1;
        await send(pool, operation);
      }
    }),
  );
}

/** Warm-up, then the counted windows: `{perRequest: [...], median}` in instructions. */
async function measure(server, operation, partial) {
  await load(server.pool, operation, CONFIG.warmup, 4);
  const perRequest = [];
  partial.perRequest = perRequest;
  await callgrind(server.child.pid, '--instr=on');
  try {
    for (let window = 0; window < CONFIG.windows; window += 1) {
      await collectGarbage(server);
      await callgrind(server.child.pid, '--zero');
      const started = performance.now();
      await load(server.pool, operation, CONFIG.requests, 1);
      await callgrind(server.child.pid, '--dump');
      const seconds = (performance.now() - started) / 1000;
      perRequest.push(Math.round(lastDump(server) / CONFIG.requests));
      (partial.seconds ??= []).push(Number(seconds.toFixed(1)));
    }
  } finally {
    await callgrind(server.child.pid, '--instr=off').catch(() => undefined);
  }
  return { perRequest, seconds: partial.seconds, median: Math.round(median(perRequest)) };
}

/** What the server does with no request (timers, pools, Redis and PostgreSQL pings): instructions a second. */
async function idle(server, seconds = 20) {
  await callgrind(server.child.pid, '--instr=on');
  try {
    await callgrind(server.child.pid, '--zero');
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    await callgrind(server.child.pid, '--dump');
    return { perSecond: Math.round(lastDump(server) / seconds) };
  } finally {
    await callgrind(server.child.pid, '--instr=off').catch(() => undefined);
  }
}

const thousands = (n) => (n === null ? '-' : Math.round(n).toLocaleString('en-US'));

async function main() {
  await run('callgrind_control', ['--version']).catch(() => {
    throw new Error(
      'valgrind is missing: apt-get install -y valgrind (it provides callgrind_control)',
    );
  });
  rmSync(RESULTS, { recursive: true, force: true });
  const runner = new PhaseRunner({
    dir: RESULTS,
    root: ROOT,
    log,
    header: benchHeader('instructions', CONFIG),
  });
  const ctx = await runner.run(
    'setup',
    async (partial) => {
      const shared = {
        DATABASE_URL: CONFIG.databaseUrl,
        REDIS_URL: CONFIG.redisUrl,
        REDIS_PREFIX: CONFIG.redisPrefix,
        PUBLIC_URL: `http://127.0.0.1:${await freePort()}`,
        NODE_ENV: 'production',
        SIGNING_KEY_SECRET: CONFIG.signingKeySecret,
        LOG_LEVEL: 'warn',
        // Both verify every token's signature, as before the verified-token cache.
        ...(CONFIG.tokenCache
          ? {}
          : { ACCESS_TOKEN_CACHE_ENTRIES: '0', REFERENCE_TOKEN_CACHE: 'off' }),
      };
      const db = await prepareDatabase(shared, 'sas-bench-instr', RESULTS);
      log('Starting the API under callgrind (minutes) …');
      const api = await startCounted(
        'api',
        'dist/apps/api/src/main.js',
        {
          ...shared,
          PORT: new URL(shared.PUBLIC_URL).port,
          SHUTDOWN_GRACE_MS: '3000',
          BOOTSTRAP_CLIENT_ID: CONFIG.clientId,
          BOOTSTRAP_CLIENT_SECRET: CONFIG.clientSecret,
        },
        '/health/ready',
      );
      partial.api = api.base;
      const org = await benchOrganization(api.base, CONFIG.clientId, CONFIG.clientSecret);
      const seed = await request(api.base, 'POST', '/v1/sessions', {
        headers: org.writeHeaders,
        body: CREATE_BODY,
      });
      if (seed.status !== 201) throw new Error(`seed session: HTTP ${seed.status} ${seed.text}`);
      const key = await request(api.base, 'POST', '/v1/api-keys', {
        headers: org.writeHeaders,
        body: JSON.stringify({ name: 'instructions', scopes: ['remote-viewing:read'] }),
      });
      if (key.status !== 201) throw new Error(`API key: HTTP ${key.status} ${key.text}`);
      log('Starting the reference server under callgrind …');
      const reference = await startCounted(
        'reference',
        'bench/reference-server.mjs',
        shared,
        '/health/live',
      );
      partial.reference = reference.base;
      return { db, api, reference, org, sessionId: seed.json.session_id, apiKey: key.json.key };
    },
    {
      toJson: ({ api, reference, sessionId }) => ({
        api: api.base,
        reference: reference.base,
        sessionId,
      }),
      fatal: true,
    },
  );
  const rows = [];
  if (ctx) {
    const read = `/v1/sessions/${ctx.sessionId}`;
    const operations = [
      { label: 'read (JWT)', method: 'GET', path: read, headers: ctx.org.readHeaders },
      { label: 'read (API key)', method: 'GET', path: read, headers: { 'x-api-key': ctx.apiKey } },
      {
        label: 'create',
        method: 'POST',
        path: '/v1/sessions',
        headers: ctx.org.writeHeaders,
        body: CREATE_BODY,
      },
    ];
    for (const server of [ctx.api, ctx.reference])
      await runner.run(`idle ${server.name}`, () => idle(server), {
        print: (result) =>
          log(`  → ${server.name} idle: ${thousands(result.perSecond)} instructions/s`),
      });
    for (const operation of operations) {
      const row = { operation: operation.label };
      for (const server of [ctx.api, ctx.reference]) {
        const measured = await runner.run(
          `${operation.label} on ${server.name}`,
          (partial) => measure(server, operation, partial),
          {
            print: (result) =>
              log(
                `  → ${operation.label} on ${server.name}: ${thousands(result.median)} instructions/request (windows: ${result.perRequest.map(thousands).join(', ')})`,
              ),
          },
        );
        row[server.name] = measured ?? null;
      }
      row.ratio =
        row.api && row.reference
          ? Number((row.api.median / row.reference.median).toFixed(2))
          : null;
      rows.push(row);
    }
    await ctx.db.end().catch(() => undefined);
  }
  await stopAll();
  log('');
  log(
    `Instructions per request (callgrind; ${CONFIG.requests} requests a window, ${CONFIG.windows} windows, after ${CONFIG.warmup} warm-up requests):`,
  );
  log('| operation | service | reference | service ÷ reference |');
  log('|---|---:|---:|---:|');
  for (const row of rows)
    log(
      `| ${row.operation} | ${thousands(row.api?.median ?? null)} | ${thousands(row.reference?.median ?? null)} | ${row.ratio ?? '-'} |`,
    );
  const allRan = runner.finish({ rows });
  process.exitCode = allRan ? 0 : 1;
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exitCode = 1;
});
