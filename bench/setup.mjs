// The `setup` and `warm-up` phases of bench/run.mjs. setUp migrates and empties the database,
// starts the servers, gets a token and an API key, gives the bench organisation its limits and
// creates the seed session: the context (`ctx`) every other phase runs on. warmUp warms both
// servers up on every route the HTTP phases load.

import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { AUDIT_API_ENV } from './audit.mjs';
import { runToCompletion } from './children.mjs';
import { DOWSING_QUERY_BODY } from './dowsing.mjs';
import { log, redactUrl, request } from './helpers.mjs';
import { BENCH_LIMITS, assertUnthrottled } from './limits.mjs';
import { findDependencyPids, freePort } from './machine.mjs';
import { managedServer } from './managed-server.mjs';
import { CONFIG, CREATE_BODY, MAX_ERROR_SHARE, RESULTS, SUBMIT_BODY } from './run-config.mjs';

const env = process.env;

/** The organisation's public id (org_…) an access token was issued for, from its payload. */
function organizationOfToken(token) {
  const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
  return payload.org_id;
}

/**
 * Migrates and empties the database, starts the API (twice: with and without request limits),
 * gets a token, gives the bench organisation the limits it needs, creates the seed session and an
 * API key, and starts the reference. Everything the other phases need.
 */
export async function setUp(runner, partial) {
  mkdirSync(RESULTS, { recursive: true });
  const dbName = decodeURIComponent(new URL(CONFIG.databaseUrl).pathname.slice(1));
  const [apiPort, refPort, unlimitedPort] = [await freePort(), await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${apiPort}`;
  const shared = {
    DATABASE_URL: CONFIG.databaseUrl,
    REDIS_URL: CONFIG.redisUrl,
    REDIS_PREFIX: CONFIG.redisPrefix,
    DATABASE_POOL_MAX: String(CONFIG.poolMax),
    PUBLIC_URL: publicUrl,
    SIMULATED_STEP_MS: String(CONFIG.simulatedStepMs),
    NODE_ENV: 'production',
    SIGNING_KEY_SECRET: CONFIG.signingKeySecret,
  };

  log(`Migrating ${redactUrl(CONFIG.databaseUrl)} …`);
  await runToCompletion('migrate', ['dist/apps/cli/src/migrate.js'], shared);

  const db = new pg.Client({ connectionString: CONFIG.databaseUrl });
  await db.connect();
  try {
    // One run per database at a time: a second one would empty the first one's tables mid-run.
    const [{ locked }] = (
      await db.query(`SELECT pg_try_advisory_lock(hashtext('sas-bench-run')) AS locked`)
    ).rows;
    if (!locked) {
      throw new Error(
        `another bench run is using ${dbName}; wait for it to end (or set DATABASE_URL to another database)`,
      );
    }
    await findDependencyPids(db);
    // A fresh, equal starting point for every run (only on the dedicated bench database).
    if (dbName === 'sas_bench' || env.BENCH_RESET === '1') {
      await db.query(
        'TRUNCATE sessions, analyses, events, webhooks, webhook_deliveries, webhook_attempts, dowsing_queries, dowsing_readings, history_cases',
      );
      log(
        `Emptied sessions, analyses, events, webhooks, dowsing queries and history cases in ${dbName}.`,
      );
    }

    const profileDir = join(RESULTS, 'profiles');
    if (CONFIG.profile) {
      rmSync(profileDir, { recursive: true, force: true });
      mkdirSync(profileDir, { recursive: true });
    }
    const hook = CONFIG.profile ? ['--import', './bench/cpu-profile-hook.mjs'] : [];
    const api = managedServer({
      runner,
      db,
      name: 'api',
      port: apiPort,
      args: [...hook, 'dist/apps/api/src/main.js'],
      childEnv: {
        ...shared,
        BOOTSTRAP_CLIENT_ID: CONFIG.clientId,
        BOOTSTRAP_CLIENT_SECRET: CONFIG.clientSecret,
        LOG_LEVEL: CONFIG.logLevel,
        SHUTDOWN_GRACE_MS: '3000',
        // The webhook phase registers receivers on 127.0.0.1 (refused as loopback otherwise).
        ...(CONFIG.webhooks.enabled ? { WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1' } : {}),
        // The audit phase's sign-ins: the sign-in form's and anonymous per-address limits raised.
        ...AUDIT_API_ENV,
      },
      readyPath: '/health/ready',
    });
    log(`Starting the API on ${api.base} (LOG_LEVEL=${CONFIG.logLevel}) …`);
    await api.start();
    partial.api = api.base;

    // The same API with the request limiter off, to measure what the limiter costs a request.
    const unlimited = managedServer({
      runner,
      db,
      name: 'api-unlimited',
      port: unlimitedPort,
      args: ['dist/apps/api/src/main.js'],
      childEnv: {
        ...shared,
        LOG_LEVEL: CONFIG.logLevel,
        SHUTDOWN_GRACE_MS: '3000',
        RATE_LIMITS: 'off',
      },
      readyPath: '/health/ready',
    });
    await unlimited.start();
    partial.apiUnlimited = unlimited.base;

    const tokenResponse = await request(api.base, 'POST', '/oauth2/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: CONFIG.clientId,
        client_secret: CONFIG.clientSecret,
      }).toString(),
    });
    if (tokenResponse.status !== 200 || !tokenResponse.json?.access_token) {
      throw new Error(
        `token request failed: HTTP ${tokenResponse.status} ${tokenResponse.text.slice(0, 300)}`,
      );
    }
    const token = tokenResponse.json.access_token;
    const readHeaders = { authorization: `Bearer ${token}` };
    const writeHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    // The bench organisation (the operator's) agrees on far more requests per minute and
    // concurrent sessions than the load sends, and has no hourly or daily quota: the limiter
    // counts every request but refuses none, and no create meets the concurrent-sessions limit.
    const organizationId = organizationOfToken(token);
    const limited = await request(
      api.base,
      'PATCH',
      `/v2/enterprise/organizations/${organizationId}`,
      { headers: writeHeaders, body: JSON.stringify(BENCH_LIMITS) },
    );
    if (limited.status !== 200)
      throw new Error(
        `limits of the bench organisation ${organizationId}: HTTP ${limited.status} ${limited.text.slice(0, 300)}`,
      );
    assertUnthrottled(limited.json, `the bench organisation ${organizationId}`);
    partial.organization = organizationId;

    const seed = await request(api.base, 'POST', '/v1/sessions', {
      headers: writeHeaders,
      body: CREATE_BODY,
    });
    if (seed.status !== 201 || !seed.json?.session_id)
      throw new Error(`seed session: HTTP ${seed.status} ${seed.text.slice(0, 300)}`);
    const sessionId = seed.json.session_id;
    const keyResponse = await request(api.base, 'POST', '/v1/api-keys', {
      headers: writeHeaders,
      body: JSON.stringify({ name: 'bench', scopes: ['remote-viewing:read'] }),
    });
    if (keyResponse.status !== 201 || !keyResponse.json?.key)
      throw new Error(`API key: HTTP ${keyResponse.status} ${keyResponse.text.slice(0, 300)}`);
    const apiKeyHeaders = { 'x-api-key': keyResponse.json.key };
    partial.sessionId = sessionId;
    log(
      `Token and API key issued; ${organizationId}: ${BENCH_LIMITS.plan} plan, ${BENCH_LIMITS.tier} tier, ${BENCH_LIMITS.requests_per_minute.toLocaleString('en')} requests/min and concurrent sessions, no hourly or daily quota; seed session ${sessionId}.`,
    );

    const reference = managedServer({
      runner,
      db,
      name: 'reference',
      port: refPort,
      args: [...hook, 'bench/reference-server.mjs'],
      childEnv: shared,
      readyPath: '/health/live',
    });
    log(`Starting the reference server on ${reference.base} …`);
    await reference.start();

    return {
      db,
      dbName,
      shared,
      api,
      unlimited,
      reference,
      organizationId,
      sessionId,
      readHeaders,
      writeHeaders,
      apiKeyHeaders,
      profileDir,
      summary: { ...partial, reference: reference.base, limits: BENCH_LIMITS },
    };
  } catch (error) {
    await db.end().catch(() => undefined);
    throw error;
  }
}

/** Both servers warmed up (JIT, connection pools, prepared plans; every route), then ANALYZE. */
export async function warmUp(ctx, partial) {
  const problems = [];
  for (const [name, server] of [
    ['service', ctx.api],
    ['reference', ctx.reference],
  ]) {
    await server.ensure('warm-up');
    log(`Warming up the ${name} (${CONFIG.warmup} s) …`);
    const warm = await autocannon({
      url: server.base,
      connections: CONFIG.connections,
      duration: CONFIG.warmup,
      requests: [
        { method: 'GET', path: `/v1/sessions/${ctx.sessionId}`, headers: ctx.readHeaders },
        { method: 'POST', path: '/v1/sessions', headers: ctx.writeHeaders, body: CREATE_BODY },
        ...(CONFIG.analyses.enabled
          ? [
              {
                method: 'POST',
                path: '/v1/analysis/targets',
                headers: ctx.writeHeaders,
                body: SUBMIT_BODY,
              },
            ]
          : []),
        ...(CONFIG.dowsing.enabled
          ? [
              {
                method: 'POST',
                path: '/v1/dowsing/query',
                headers: ctx.writeHeaders,
                body: DOWSING_QUERY_BODY,
              },
            ]
          : []),
      ],
    });
    partial[name] = {
      requests: warm.requests.total,
      non2xx: warm.non2xx,
      errors: warm.errors,
      statusCodes: warm.statusCodeStats,
    };
    if (warm.non2xx + warm.errors > MAX_ERROR_SHARE * Math.max(1, warm.requests.total))
      problems.push(
        `the ${name}: ${warm.non2xx} non-2xx and ${warm.errors} errors in ${warm.requests.total} requests (${JSON.stringify(warm.statusCodeStats)}); see bench/results/*.log`,
      );
    const problem = await server.problem();
    if (problem) problems.push(`after warming up, ${problem}`);
  }
  // Fresh planner statistics for the rows the warm-up wrote (after the TRUNCATE the planner
  // would otherwise think the tables are empty until autovacuum catches up mid-run).
  await ctx.db.query('ANALYZE sessions, analyses, events, dowsing_queries, dowsing_readings');
  if (problems.length > 0) throw new Error(`warm-up: ${problems.join('; ')}`);
  return partial;
}
