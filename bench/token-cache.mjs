// The verified-token cache (issue 42): the JWT-authenticated read, GET /v1/sessions/{id} with a
// bearer token, on the API with its cache (as shipped) and without (ACCESS_TOKEN_CACHE_ENTRIES=0:
// every request verifies the ES256 signature, as before the cache), and on bench/reference-server.mjs
// with the same cache and without (REFERENCE_TOKEN_CACHE=off). The four servers run side by side
// and are measured one after another in interleaved rounds (the order rotating each round), so a
// change in the machine's speed falls on all four alike; medians of the rounds after the first
// (a warm-up). BENCH_TOKENS_BASELINE=<a checkout, built> adds that build's API as a fifth server
// (`before`), the previous commit say, for an A/B of the two builds themselves.
//
// Then the cache's memory: 20,000 entries shaped like the bench token's (its scopes, subject and
// organisation, each entry's own strings) put into the built VerifiedTokenCache in this process,
// the heap measured after full collections, against the cache's own estimate.
//
//   npm run bench:tokens
//   BENCH_PROFILE=1 node bench/token-cache.mjs   (CPU profiles of api-cached and reference-cached;
//                                                 node bench/profile-summary.mjs A B compares them)
//   BENCH_ROUNDS=5 BENCH_DURATION=10 BENCH_CONNECTIONS=50 node bench/token-cache.mjs
//
// Its own database (sas_bench_tokens) and Redis prefix (sas-bench-tokens). Results:
// bench/results/tokens/<run>-<phase>.json, <run>-run.json, latest.json and the servers' logs.
// Exit code 1 when a phase failed or a measurement served more than 1 % errors.

import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import autocannon from 'autocannon';
import { cpuMs, freePort, machineSnapshot } from './machine.mjs';
import { benchHeader, PhaseRunner } from './phases.mjs';
import {
  ROOT,
  benchOrganization,
  prepareDatabase,
  request,
  startApi,
  startNode,
  stopAll,
  waitReady,
} from './services.mjs';
import { median, wholeNumber } from './settings.mjs';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const RESULTS = join(ROOT, 'bench', 'results', 'tokens');
const env = process.env;
const CONFIG = {
  databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/sas_bench_tokens',
  redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
  redisPrefix: 'sas-bench-tokens',
  duration: wholeNumber('BENCH_DURATION', 10),
  connections: wholeNumber('BENCH_CONNECTIONS', 50),
  rounds: wholeNumber('BENCH_ROUNDS', 5),
  warmup: wholeNumber('BENCH_WARMUP', 2),
  baseline: env.BENCH_TOKENS_BASELINE || null,
  // CPU profiles of api-cached and reference-cached over one more load each (bench/results/tokens/).
  profile: env.BENCH_PROFILE === '1',
  memoryEntries: 20_000,
  clientId: 'sas-bench-tokens-client',
  clientSecret: 'sas-bench-tokens-secret-8e1f4c7a2d9b',
  signingKeySecret: env.SIGNING_KEY_SECRET || 'sas-bench-signing-key-secret-5c1e8a7d3f90b2e4',
};
const MAX_ERROR_SHARE = 0.01;
const TARGETS = { gain: 1.3, reference: 0.9 };
const CREATE_BODY = JSON.stringify({ type: 'remote_viewing', target: 'Token cache bench' });

const log = (line) => process.stdout.write(`[tokens] ${line}\n`);
const fmt = (n, digits = 2) => (n === null || n === undefined ? '-' : Number(n).toFixed(digits));

async function setUp() {
  const publicUrl = `http://127.0.0.1:${await freePort()}`;
  const shared = {
    DATABASE_URL: CONFIG.databaseUrl,
    REDIS_URL: CONFIG.redisUrl,
    REDIS_PREFIX: CONFIG.redisPrefix,
    PUBLIC_URL: publicUrl,
    NODE_ENV: 'production',
    SIGNING_KEY_SECRET: CONFIG.signingKeySecret,
    LOG_LEVEL: 'warn',
    BOOTSTRAP_CLIENT_ID: CONFIG.clientId,
    BOOTSTRAP_CLIENT_SECRET: CONFIG.clientSecret,
  };
  const db = await prepareDatabase(shared, 'sas-bench-tokens', RESULTS);
  try {
    return await startServers(shared, db);
  } catch (error) {
    await db.end().catch(() => undefined); // its lock would keep this process alive
    throw error;
  }
}

async function startServers(shared, db) {
  // Every server answers to the same PUBLIC_URL (the token's iss and aud) on a port of its own.
  const profiled = CONFIG.profile
    ? { nodeArgs: ['--import', './bench/cpu-profile-hook.mjs'], ipc: true }
    : {};
  const cached = await startApi(shared, { logDir: RESULTS, name: 'api-cached', ...profiled });
  const org = await benchOrganization(cached.base, CONFIG.clientId, CONFIG.clientSecret);
  const seed = await request(cached.base, 'POST', '/v1/sessions', {
    headers: org.writeHeaders,
    body: CREATE_BODY,
  });
  if (seed.status !== 201) throw new Error(`seed session: HTTP ${seed.status} ${seed.text}`);
  const servers = [{ name: 'api-cached', base: cached.base, child: cached.child }];
  const uncached = await startApi(shared, {
    logDir: RESULTS,
    name: 'api-uncached',
    port: await freePort(),
    env: { ACCESS_TOKEN_CACHE_ENTRIES: '0' },
  });
  servers.push({ name: 'api-uncached', base: uncached.base, child: uncached.child });
  for (const [name, extra] of [
    ['reference-cached', {}],
    ['reference-uncached', { REFERENCE_TOKEN_CACHE: 'off' }],
  ]) {
    const port = await freePort();
    const child = startNode(
      name,
      ['bench/reference-server.mjs'],
      { ...shared, ...extra, PORT: String(port) },
      { logDir: RESULTS, ...(name === 'reference-cached' ? profiled : {}) },
    );
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}/health/live`, child);
    servers.push({ name, base, child });
  }
  if (CONFIG.baseline) {
    const port = await freePort();
    const child = startNode(
      'api-before',
      [join(CONFIG.baseline, 'dist/apps/api/src/main.js')],
      { ...shared, PORT: String(port), SHUTDOWN_GRACE_MS: '2000' },
      { logDir: RESULTS },
    );
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}/health/ready`, child);
    servers.push({ name: 'api-before', base, child });
  }
  return { db, servers, org, path: `/v1/sessions/${seed.json.session_id}` };
}

async function load(ctx, server, durationS) {
  const result = await autocannon({
    url: `${server.base}${ctx.path}`,
    headers: ctx.org.readHeaders,
    connections: CONFIG.connections,
    duration: durationS,
  });
  return {
    requestsPerSecond: Math.round(result.requests.total / durationS),
    errors: result.errors + result.timeouts + result.non2xx,
    total: result.requests.total,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
  };
}

/** One server in one round: warmed up, then measured with its CPU per request and the machine's. */
async function measure(ctx, server) {
  await load(ctx, server, CONFIG.warmup);
  const cpuBefore = cpuMs(server.child.pid);
  const machineBefore = machineSnapshot();
  const measured = await load(ctx, server, CONFIG.duration);
  const machine = machineSnapshot();
  const busy = (s) => s.busyMs + s.stealMs;
  const total = (s) => s.busyMs + s.stealMs + s.idleMs;
  if (measured.errors > measured.total * MAX_ERROR_SHARE)
    throw new Error(`${server.name}: ${measured.errors} errors of ${measured.total} requests`);
  return {
    ...measured,
    cpuUsPerRequest: Math.round(((cpuMs(server.child.pid) - cpuBefore) * 1000) / measured.total),
    machineBusyPct: Math.round(
      ((busy(machine) - busy(machineBefore)) / (total(machine) - total(machineBefore))) * 100,
    ),
  };
}

/** A CPU profile of `server` over one load (bench/cpu-profile-hook.mjs), with its request count beside it. */
async function profile(ctx, server) {
  const answer = (key) =>
    new Promise((resolve) => {
      const onMessage = (message) => {
        if (!message?.[key]) return;
        server.child.off('message', onMessage);
        resolve(message);
      };
      server.child.on('message', onMessage);
    });
  const started = answer('profileStarted');
  server.child.send({ profile: 'start' });
  await started;
  const measured = await load(ctx, server, CONFIG.duration);
  const file = join(RESULTS, `${server.name}-read.cpuprofile`);
  const written = answer('profileWritten');
  server.child.send({ profile: 'stop', file });
  await written;
  writeFileSync(
    file.replace(/\.cpuprofile$/, '.json'),
    JSON.stringify({ requests: measured.total }),
  );
  return { file, requests: measured.total };
}

/** Heap per entry of the built cache, filled with entries like the bench token's. */
async function memory(ctx) {
  const { VerifiedTokenCache } = await import('../dist/libs/auth/src/verified-token-cache.js');
  const token = ctx.org.readHeaders.authorization.slice('Bearer '.length);
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
  const { kid } = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
  const settings = {
    accessTokenCache: { entries: CONFIG.memoryEntries, maxBytes: 1024 * 1024 * 1024 },
  };
  const keys = { isPublished: () => true };
  const heap = () => {
    gc();
    gc();
    return v8.getHeapStatistics().used_heap_size;
  };
  const before = heap();
  const cache = new VerifiedTokenCache(keys, {}, settings);
  const expiresAt = Date.now() + 3_600_000;
  for (let i = 0; i < CONFIG.memoryEntries; i += 1) {
    // Each entry's strings its own, as verifying a token makes them.
    const random = randomBytes(8).toString('hex');
    cache.set(VerifiedTokenCache.keyOf(`${token}${random}`), {
      principal: Object.freeze({
        credential: 'access_token',
        subject: `${claims.sub}${random}`.slice(0, claims.sub.length),
        organizationId: `${claims.org_id}${random}`.slice(0, 36),
        mode: claims.mode,
        scopes: Object.freeze(`${claims.scope} `.split(' ').filter(Boolean)),
      }),
      kid: `${kid} `.trim(),
      grantId: null,
      expiresAt,
    });
  }
  const after = heap();
  const usage = cache.usage();
  return {
    entries: usage.entries,
    scopes: claims.scope.split(' ').length,
    measuredBytesPerEntry: Math.round((after - before) / usage.entries),
    estimatedBytesPerEntry: Math.round(usage.bytes / usage.entries),
    defaultEntriesMb: Number((((after - before) / usage.entries) * 10_000) / 1024 / 1024).toFixed(
      1,
    ),
  };
}

function summarise(rounds) {
  const names = Object.keys(rounds[0] ?? {});
  const measuredRounds = rounds.slice(1);
  const med = (name, pick) =>
    median(
      measuredRounds
        .map((round) => round[name])
        .filter(Boolean)
        .map(pick),
    );
  const figures = Object.fromEntries(
    names.map((name) => [
      name,
      {
        requestsPerSecond: Math.round(med(name, (r) => r.requestsPerSecond)),
        cpuUsPerRequest: Math.round(med(name, (r) => r.cpuUsPerRequest)),
        p99Ms: med(name, (r) => r.latencyMs.p99),
        machineBusyPct: Math.round(med(name, (r) => r.machineBusyPct)),
      },
    ]),
  );
  const ratio = (a, b) =>
    figures[a] && figures[b]
      ? Number((figures[a].requestsPerSecond / figures[b].requestsPerSecond).toFixed(2))
      : null;
  // Per round, so the spread shows.
  const perRound = (a, b) =>
    measuredRounds
      .filter((round) => round[a] && round[b])
      .map((round) => Number((round[a].requestsPerSecond / round[b].requestsPerSecond).toFixed(2)));
  return {
    rounds: measuredRounds.length,
    figures,
    ratios: {
      gain: ratio('api-cached', 'api-uncached'),
      gainPerRound: perRound('api-cached', 'api-uncached'),
      gainOverBefore: ratio('api-cached', 'api-before'),
      againstReference: ratio('api-cached', 'reference-cached'),
      againstReferencePerRound: perRound('api-cached', 'reference-cached'),
      referenceGain: ratio('reference-cached', 'reference-uncached'),
      uncachedAgainstReference: ratio('api-uncached', 'reference-uncached'),
    },
  };
}

async function main() {
  const runner = new PhaseRunner({
    dir: RESULTS,
    root: ROOT,
    log,
    header: benchHeader('tokens', CONFIG),
  });
  const ctx = await runner.run('setup', () => setUp(), {
    toJson: ({ servers, path }) => ({
      servers: servers.map(({ name, base }) => ({ name, base })),
      path,
    }),
    fatal: true,
  });
  let summary = null;
  if (ctx) {
    const rounds = [];
    await runner.run(
      'reads',
      async (partial) => {
        partial.rounds = rounds;
        for (let round = 0; round <= CONFIG.rounds; round += 1) {
          const order = ctx.servers.map((_, i) => ctx.servers[(i + round) % ctx.servers.length]);
          const row = {};
          rounds.push(row);
          for (const server of order) {
            row[server.name] = await measure(ctx, server);
            log(
              `  round ${round}${round === 0 ? ' (warm-up)' : ''} ${server.name}: ${row[server.name].requestsPerSecond} req/s, ${row[server.name].cpuUsPerRequest} µs CPU/request, p99 ${row[server.name].latencyMs.p99} ms, machine ${row[server.name].machineBusyPct} % busy`,
            );
          }
        }
        summary = summarise(rounds);
        return { rounds, summary };
      },
      { print: () => undefined },
    );
    if (summary === null && rounds.length > 1) summary = summarise(rounds);
    if (CONFIG.profile)
      for (const name of ['api-cached', 'reference-cached'])
        await runner.run(`profile ${name}`, () =>
          profile(
            ctx,
            ctx.servers.find((server) => server.name === name),
          ),
        );
    await runner.run('memory', () => memory(ctx), {
      print: (result) =>
        log(
          `  → ${result.entries} entries of ${result.scopes} scopes: ${result.measuredBytesPerEntry} bytes each measured, ${result.estimatedBytesPerEntry} estimated; the default 10,000 entries ≈ ${result.defaultEntriesMb} MB`,
        ),
    });
    await ctx.db.end().catch(() => undefined);
  }
  await stopAll();
  if (summary) {
    const { figures, ratios } = summary;
    log('');
    log(
      `JWT read, GET /v1/sessions/{id}, ${CONFIG.connections} connections, ${CONFIG.duration} s × ${summary.rounds} rounds (medians):`,
    );
    log('| server | req/s | CPU µs/request | p99 ms |');
    log('|---|---:|---:|---:|');
    for (const [name, f] of Object.entries(figures))
      log(`| ${name} | ${f.requestsPerSecond} | ${f.cpuUsPerRequest} | ${fmt(f.p99Ms, 1)} |`);
    log(
      `cached ÷ uncached (the gain): ${fmt(ratios.gain)}× (rounds ${ratios.gainPerRound.join(', ')}; target ${TARGETS.gain}×)`,
    );
    if (ratios.gainOverBefore !== null)
      log(`cached ÷ the baseline build: ${fmt(ratios.gainOverBefore)}×`);
    log(
      `service ÷ reference, both cached: ${fmt(ratios.againstReference)}× (rounds ${ratios.againstReferencePerRound.join(', ')}; target ${TARGETS.reference}×)`,
    );
    log(
      `reference cached ÷ uncached: ${fmt(ratios.referenceGain)}×; service ÷ reference, both uncached: ${fmt(ratios.uncachedAgainstReference)}×`,
    );
  }
  const allRan = runner.finish({ summary });
  process.exitCode = allRan ? 0 : 1;
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exitCode = 1;
});
