// Audit log write cost (issue 41): what the one INSERT INTO audit_events that every
// security-relevant change now makes (libs/events/src/audit/audit-log.ts, AuditLog.record) costs
// the two changes people make most: creating an API key (POST /v1/api-keys, `api_key.created`, in
// the transaction that inserts the key) and a password sign-in on the authorization server's
// sign-in page (POST /oauth2/interaction/{uid}/login, `sign_in.succeeded`, its own statement).
//
//   node bench/audit.mjs     (npm run build first) — alone: its own database and API, see below
//   npm run bench            — the `audit` phase of bench/run.mjs, on its API (BENCH_AUDIT=0 skips it)
//
// The same build, in two configurations, measured in interleaved rounds A B A B … (BENCH_AUDIT_ROUNDS
// of each, default 6; the first of each is a warm-up and not counted):
//   A  as shipped: the audit row is written;
//   B  the audit row's write discarded inside PostgreSQL by a rule created before B's round and
//      dropped before A's (`CREATE RULE bench_discard_audit AS ON INSERT TO audit_events DO INSTEAD
//      NOTHING`). The API still sends the statement and waits for its answer: B removes the write
//      (heap, five indexes, WAL, and for a sign-in the commit's WAL flush), not the round trip.
// Each round of each configuration: BENCH_AUDIT_KEYS (200) key creations one at a time, then
// BENCH_AUDIT_CONCURRENT_KEYS (400) with BENCH_AUDIT_CONCURRENCY (8) in flight, then
// BENCH_AUDIT_SIGN_INS (30) password sign-ins one at a time, each the whole authorization code
// flow as test/support/authorization.ts `authorizeAs` drives it (authorize → sign-in page → form
// POST → consent → client's redirect URI with a code), timing the form POST (the request that
// writes the row) and the whole flow. The audit rows each measurement left are counted: A must
// leave one per operation, B none, or the phase fails (the configurations were not what they
// claim).
// C  the statement itself, on one connection of the bench's own: BENCH_AUDIT_STATEMENTS (2,000)
//    transactions of `BEGIN; INSERT INTO audit_events … (a row like the API writes); COMMIT`
//    against as many of `BEGIN; COMMIT` (the sign-in's case: the INSERT is a transaction of its
//    own: without it the commit writes no WAL and waits for no flush), and the same inside a
//    transaction that writes WAL anyway (`BEGIN; SELECT pg_logical_emit_message(true, …); [INSERT;]
//    COMMIT`, the key creation's case: its commit waits for the WAL flush with or without the
//    audit row), in interleaved blocks of 200; µs per INSERT.
// Reported as ratios and differences against A in the same run; no duration is asserted.
//
// Alone (`node bench/audit.mjs`) it uses its own database (DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/sas_bench_audit, created and migrated if missing) and Redis
// prefix (sas-bench-audit), and starts the built API as bench/run.mjs starts its own (production,
// the bench's signing-key secret and bootstrap client, LOG_LEVEL=warn, DATABASE_POOL_MAX,
// --no-memory-reducer and the full-GC log hook) plus AUDIT_API_ENV. Results:
// bench/results/audit/<run>-audit.json, <run>-run.json, latest.json; the API's log beside them.

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { TypeID } from 'typeid-js';
import { BENCH_LIMITS, assertUnthrottled } from './limits.mjs';
import { NOISE, cpuMs, machineSnapshot } from './machine.mjs';
import { median, wholeNumber } from './settings.mjs';

/**
 * What the API needs for this phase: the sign-in form's per-address limit (30 a minute) and the
 * per-address budget of requests without a credential (600 a minute: the authorize and interaction
 * pages) raised to their maximum, as the bench's organisations get limits no load reaches. Failed
 * sign-ins are limited apart from these (SIGN_IN_LIMITS) and the bench makes none.
 */
export const AUDIT_API_ENV = Object.freeze({
  SIGN_IN_RATE_PER_ADDRESS: '1000000',
  ANONYMOUS_RATE_PER_ADDRESS: '1000000',
});

const RULE = 'bench_discard_audit';
const CREATE_RULE = `CREATE RULE ${RULE} AS ON INSERT TO audit_events DO INSTEAD NOTHING`;
const DROP_RULE = `DROP RULE IF EXISTS ${RULE} ON audit_events`;
const REQUEST_TIMEOUT_MS = 30_000;
const STATEMENT_BLOCK = 200;
const REDIRECT_URI = 'http://127.0.0.1:9/callback'; // nothing listens: the bench reads the URL
const KEY_BODY = JSON.stringify({ name: 'audit bench', scopes: ['remote-viewing:read'] });
const USER_AGENT = 'sas-bench-audit/1.0';
const CONFIGS = {
  A: 'as shipped',
  B: 'audit write discarded (rule)',
};
/** AuditLog.record's statement, word for word. */
const AUDIT_INSERT = `INSERT INTO audit_events (id, organization_id, mode, action, actor_type, actor_id,
         target_type, target_id, ip, user_agent, request_id, changes, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`;

const round = (value, digits = 2) =>
  value === null || value === undefined || !Number.isFinite(value)
    ? null
    : Number(value.toFixed(digits));
const percentile = (sorted, p) =>
  sorted.length === 0
    ? null
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const sortedOf = (values) => Float64Array.from(values).sort();
const medianOf = (values) => {
  const present = values.filter((value) => value !== null && value !== undefined);
  return present.length === 0 ? null : median(present);
};
const mean = (values) =>
  values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;

/** The phase's settings, from the environment (a bad value fails the phase, saying which). */
export function auditSettings() {
  const settings = {
    rounds: wholeNumber('BENCH_AUDIT_ROUNDS', 6, 2), // of each configuration, the first a warm-up
    keys: wholeNumber('BENCH_AUDIT_KEYS', 200),
    concurrentKeys: wholeNumber('BENCH_AUDIT_CONCURRENT_KEYS', 400),
    concurrency: wholeNumber('BENCH_AUDIT_CONCURRENCY', 8),
    signIns: wholeNumber('BENCH_AUDIT_SIGN_INS', 30),
    statements: wholeNumber('BENCH_AUDIT_STATEMENTS', 2000),
  };
  return { ...settings, measuredRounds: settings.rounds - 1 };
}

// ------------------------------------------------------------------ HTTP

async function call(url, init = {}) {
  let response;
  let text;
  try {
    response = await fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    throw new Error(`${init.method ?? 'GET'} ${url} failed`, { cause: error });
  }
  return { status: response.status, headers: response.headers, text };
}

const json = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** A browser's cookie store for the sign-in round trips (test/support/authorization.ts CookieJar). */
class CookieJar {
  #cookies = new Map();
  requests = 0;

  async fetch(url, { method = 'GET', form } = {}) {
    this.requests += 1;
    const headers = { 'user-agent': USER_AGENT };
    if (this.#cookies.size > 0)
      headers.cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    let body;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const response = await call(url, { method, headers, body });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const expired = attributes.some((attribute) =>
        /^\s*expires=Thu, 01 Jan 1970/i.test(attribute),
      );
      if (value === '' || expired) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return { ...response, location: response.headers.get('location') };
  }
}

/** An authorization request with PKCE (test/support/authorization.ts authorizationRequest). */
function authorizationUrl(endpoint, client) {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const url = new URL(endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    scope: client.scope,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return { url, state };
}

/**
 * One sign-in as test/support/authorization.ts `authorizeAs` drives it: follows the redirects of
 * the authorization request, posts the sign-in form where the page has a password field, allows
 * on the consent page, until the server sends the browser to the client. The form POST and the
 * whole flow are timed; the end must be the redirect URI with a code and the request's state.
 */
async function signIn(base, endpoint, client, person) {
  const jar = new CookieJar();
  const { url, state } = authorizationUrl(endpoint, client);
  const origin = new URL(base).origin;
  const started = performance.now();
  let response = await jar.fetch(url);
  let formMs = null;
  for (let step = 0; step < 12; step += 1) {
    if (!response.location)
      throw new Error(
        `sign-in flow: expected a redirect, got HTTP ${response.status}: ${response.text.slice(0, 300)}`,
      );
    const next = new URL(response.location, base);
    if (next.origin !== origin) {
      const flowMs = performance.now() - started;
      const code = next.searchParams.get('code');
      if (`${next.origin}${next.pathname}` !== REDIRECT_URI || !code)
        throw new Error(`sign-in flow: ended at ${next.href}, not the redirect URI with a code`);
      if (next.searchParams.get('state') !== state)
        throw new Error('sign-in flow: the redirect carries another state');
      if (formMs === null) throw new Error('sign-in flow: no sign-in form was shown');
      return { formMs, flowMs, requests: jar.requests };
    }
    if (!next.pathname.startsWith('/oauth2/interaction/')) {
      response = await jar.fetch(next);
      continue;
    }
    const page = await jar.fetch(next);
    if (page.status !== 200)
      throw new Error(
        `sign-in flow: ${next.pathname}: HTTP ${page.status} ${page.text.slice(0, 300)}`,
      );
    if (page.text.includes('name="password"')) {
      const formStarted = performance.now();
      response = await jar.fetch(`${next.href}/login`, {
        method: 'POST',
        form: { email: person.email, password: person.password },
      });
      formMs = performance.now() - formStarted;
      if (response.status !== 303)
        throw new Error(
          `sign-in form: HTTP ${response.status} ${response.text.replace(/\s+/g, ' ').slice(0, 300)}`,
        );
    } else {
      response = await jar.fetch(`${next.href}/confirm`, { method: 'POST' });
    }
  }
  throw new Error('sign-in flow: too many redirects');
}

// ------------------------------------------------------------------ set-up

/**
 * The phase's own organisation (the bench's limits), made as the other phases make theirs; through
 * its admin API key a client_credentials client (its token creates the keys: POST /v1/api-keys
 * takes access tokens only) and a public authorization-code client (the sign-ins); and a person
 * with a local password, inserted as test/support/people.ts `addMember` does.
 */
async function setUpOrganization({ apiBase, operatorHeaders, db, root }) {
  const created = await call(`${apiBase}/v2/enterprise/organizations`, {
    method: 'POST',
    headers: { ...operatorHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Audit log write cost', ...BENCH_LIMITS }),
  });
  if (created.status !== 201)
    throw new Error(
      `audit phase: organisation: HTTP ${created.status} ${created.text.slice(0, 300)}`,
    );
  const organization = json(created.text);
  assertUnthrottled(organization, `audit phase: organisation ${organization.id}`);
  const adminHeaders = {
    'x-api-key': organization.admin_api_key,
    'content-type': 'application/json',
  };
  const register = async (body) => {
    const response = await call(`${apiBase}/v1/oauth-clients`, {
      method: 'POST',
      headers: adminHeaders,
      body: JSON.stringify(body),
    });
    if (response.status !== 201)
      throw new Error(
        `audit phase: OAuth client: HTTP ${response.status} ${response.text.slice(0, 300)}`,
      );
    return json(response.text);
  };
  const server = await register({
    client_name: 'Audit bench: key creation',
    grant_types: ['client_credentials'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'organizations:read organizations:write remote-viewing:read',
  });
  const app = await register({
    client_name: 'Audit bench: sign-ins',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
    scope: 'remote-viewing:read profile email',
  });
  const token = await call(`${apiBase}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(server.client_id)}:${encodeURIComponent(server.client_secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: server.scope,
    }).toString(),
  });
  const accessToken = json(token.text)?.access_token;
  if (token.status !== 200 || !accessToken)
    throw new Error(`audit phase: token: HTTP ${token.status} ${token.text.slice(0, 300)}`);

  const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const { hashPassword } = await dist('libs/auth/src/passwords.js');
  const { newUuid } = await dist('libs/common/src/ids.js');
  const organizationUuid = TypeID.fromString(organization.id, 'org').toUUID();
  const person = {
    email: `audit.bench.${randomBytes(4).toString('hex')}@example.test`,
    password: `pw-${randomBytes(12).toString('hex')}`,
  };
  await db.query(
    `INSERT INTO users (id, organization_id, email, name, password_hash, roles)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      newUuid(),
      organizationUuid,
      person.email,
      'Audit Bench',
      await hashPassword(person.password),
      ['analyst'],
    ],
  );
  const discovery = await call(`${apiBase}/.well-known/oauth-authorization-server`);
  const authorizationEndpoint = json(discovery.text)?.authorization_endpoint;
  if (discovery.status !== 200 || !authorizationEndpoint)
    throw new Error(
      `audit phase: discovery: HTTP ${discovery.status} ${discovery.text.slice(0, 200)}`,
    );
  return {
    organizationId: organization.id,
    organizationUuid,
    keyHeaders: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    app,
    person,
    authorizationEndpoint,
    serverClientId: server.client_id,
    newUuid,
  };
}

// ------------------------------------------------------------------ measuring

/**
 * Runs `work` and says what it cost: wall time, the API's CPU (all threads), PostgreSQL's and
 * Redis's CPU, the machine's other load (% of one core) and the API's full GCs inside it.
 */
async function accounted({ apiPid, apiFullGcs }, work) {
  const pid = apiPid();
  const from = Date.now();
  const machineBefore = machineSnapshot();
  const apiBefore = cpuMs(pid);
  const benchBefore = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  const apiAfter = cpuMs(pid);
  const machineAfter = machineSnapshot();
  const bench = process.cpuUsage(benchBefore);
  const apiMs = apiBefore === null || apiAfter === null ? null : apiAfter - apiBefore;
  let databasesMs = null;
  let otherPct = null;
  if (machineBefore && machineAfter) {
    databasesMs = 0;
    for (const [dbPid, ms] of machineAfter.databases)
      databasesMs += ms - (machineBefore.databases.get(dbPid) ?? 0);
    const busyMs =
      machineAfter.busyMs - machineBefore.busyMs + machineAfter.stealMs - machineBefore.stealMs;
    const benchMs = (bench.user + bench.system) / 1000;
    otherPct = Math.max(
      0,
      Math.round((100 * (busyMs - (apiMs ?? 0) - databasesMs - benchMs)) / wallMs),
    );
  }
  const gcs = apiFullGcs ? apiFullGcs({ from, to: Date.now() }) : null;
  return { result, wallMs, apiMs, databasesMs, otherPct, fullGcs: gcs?.count ?? null };
}

/** The figures of `count` operations that took `latencies` (ms) within an accounted window. */
function figures(latencies, window, count = latencies.length) {
  const sorted = sortedOf(latencies);
  const perOp = (ms) => (ms === null ? null : Math.round((1000 * ms) / count));
  return {
    count,
    seconds: round(window.wallMs / 1000, 2),
    perS: round((1000 * count) / window.wallMs, 1),
    latencyMs: {
      p50: round(percentile(sorted, 50), 3),
      p95: round(percentile(sorted, 95), 3),
      p99: round(percentile(sorted, 99), 3),
      mean: round(mean(latencies), 3),
    },
    apiCpuUs: perOp(window.apiMs),
    pgRedisCpuUs: perOp(window.databasesMs),
    otherPct: window.otherPct,
    fullGcs: window.fullGcs,
    latencies: sorted, // raw, left out of the files
  };
}

async function createKey(apiBase, headers) {
  const started = performance.now();
  const response = await call(`${apiBase}/v1/api-keys`, {
    method: 'POST',
    headers,
    body: KEY_BODY,
  });
  const ms = performance.now() - started;
  if (response.status !== 201)
    throw new Error(`POST /v1/api-keys: HTTP ${response.status} ${response.text.slice(0, 300)}`);
  return ms;
}

async function sequentialKeys(ctx, count) {
  const latencies = [];
  const window = await accounted(ctx, async () => {
    for (let i = 0; i < count; i += 1)
      latencies.push(await createKey(ctx.apiBase, ctx.org.keyHeaders));
  });
  return figures(latencies, window);
}

async function concurrentKeys(ctx, count, concurrency) {
  const latencies = [];
  let issued = 0;
  const window = await accounted(ctx, () =>
    Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (issued < count) {
          issued += 1;
          latencies.push(await createKey(ctx.apiBase, ctx.org.keyHeaders));
        }
      }),
    ),
  );
  return figures(latencies, window);
}

async function sequentialSignIns(ctx, count) {
  const form = [];
  const flow = [];
  let requests = 0;
  const window = await accounted(ctx, async () => {
    for (let i = 0; i < count; i += 1) {
      const one = await signIn(
        ctx.apiBase,
        ctx.org.authorizationEndpoint,
        ctx.org.app,
        ctx.org.person,
      );
      form.push(one.formMs);
      flow.push(one.flowMs);
      requests = one.requests;
    }
  });
  return { form: figures(form, window), flow: figures(flow, window), requestsPerFlow: requests };
}

async function auditRows(db, organizationUuid) {
  const { rows } = await db.query(
    'SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1',
    [organizationUuid],
  );
  return rows[0].n;
}

/** The rule of configuration B in place (or not), checked in the catalogue. */
async function configure(db, config) {
  await db.query(DROP_RULE);
  if (config === 'B') await db.query(CREATE_RULE);
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM pg_rules WHERE tablename = 'audit_events' AND rulename = $1`,
    [RULE],
  );
  if (rows[0].n !== (config === 'B' ? 1 : 0))
    throw new Error(`audit phase: the rule ${RULE} is not as configuration ${config} needs it`);
}

/** One configuration's measurement in one round: key creations, then sign-ins. */
async function measure(ctx, settings, config, roundIndex) {
  await configure(ctx.db, config);
  const before = await auditRows(ctx.db, ctx.org.organizationUuid);
  const keys = await sequentialKeys(ctx, settings.keys);
  const keysConcurrent = await concurrentKeys(ctx, settings.concurrentKeys, settings.concurrency);
  const signIns = await sequentialSignIns(ctx, settings.signIns);
  const written = (await auditRows(ctx.db, ctx.org.organizationUuid)) - before;
  const operations = settings.keys + settings.concurrentKeys + settings.signIns;
  const expected = config === 'A' ? operations : 0;
  if (written !== expected)
    throw new Error(
      `audit phase: configuration ${config} (${CONFIGS[config]}) left ${written} audit rows for ${operations} operations, expected ${expected}`,
    );
  return {
    round: roundIndex,
    config,
    warmUp: roundIndex === 0,
    keys,
    keysConcurrent,
    signInForm: signIns.form,
    signInFlow: signIns.flow,
    requestsPerFlow: signIns.requestsPerFlow,
    auditRowsWritten: written,
  };
}

// ------------------------------------------------------------------ C: the statement itself

/** A row like the API writes for `api_key.created` (changes: name, scopes, mode). */
function auditRow(org) {
  const { newUuid } = org;
  const changes = {
    name: { before: null, after: 'audit bench' },
    scopes: { before: null, after: ['remote-viewing:read'] },
    mode: { before: null, after: 'live' },
  };
  return [
    newUuid(),
    org.organizationUuid,
    'live',
    'api_key.created',
    'client',
    org.serverClientId,
    'api_key',
    TypeID.fromUUID('key', newUuid()).toString(),
    '127.0.0.1',
    USER_AGENT,
    TypeID.fromUUID('req', newUuid()).toString(),
    JSON.stringify(changes),
    null,
  ];
}

/**
 * `count` transactions with the INSERT and as many without, on one connection, in interleaved
 * blocks (with/without, then without/with, …) after one untimed block of each. `prefix` is what
 * both run after BEGIN.
 */
async function statementCost(client, org, count, prefix) {
  const run = async (withInsert) => {
    const started = performance.now();
    await client.query('BEGIN');
    for (const statement of prefix) await client.query(statement);
    if (withInsert) await client.query(AUDIT_INSERT, auditRow(org));
    await client.query('COMMIT');
    return performance.now() - started;
  };
  const block = async (withInsert, size) => {
    const times = [];
    for (let i = 0; i < size; i += 1) times.push(await run(withInsert));
    return times;
  };
  await block(true, Math.min(STATEMENT_BLOCK, count));
  await block(false, Math.min(STATEMENT_BLOCK, count));
  const withTimes = [];
  const withoutTimes = [];
  const blockDiffsUs = [];
  for (let done = 0, b = 0; done < count; b += 1) {
    const size = Math.min(STATEMENT_BLOCK, count - done);
    const order = b % 2 === 0 ? [true, false] : [false, true];
    const got = {};
    for (const withInsert of order) got[withInsert] = await block(withInsert, size);
    withTimes.push(...got.true);
    withoutTimes.push(...got.false);
    blockDiffsUs.push(1000 * (mean(got.true) - mean(got.false)));
    done += size;
  }
  const withSorted = sortedOf(withTimes);
  const withoutSorted = sortedOf(withoutTimes);
  return {
    transactions: count,
    withInsertUs: round(1000 * mean(withTimes), 1),
    withoutUs: round(1000 * mean(withoutTimes), 1),
    perInsertUs: round(1000 * (mean(withTimes) - mean(withoutTimes)), 1),
    perInsertP50Us: round(1000 * (percentile(withSorted, 50) - percentile(withoutSorted, 50)), 1),
    blocks: {
      size: STATEMENT_BLOCK,
      medianUs: round(median(blockDiffsUs), 1),
      minUs: round(Math.min(...blockDiffsUs), 1),
      maxUs: round(Math.max(...blockDiffsUs), 1),
    },
  };
}

// ------------------------------------------------------------------ summary

const OPERATIONS = [
  ['keys', 'POST /v1/api-keys, one at a time'],
  ['keysConcurrent', 'POST /v1/api-keys, concurrently'],
  ['signInForm', 'sign-in form POST'],
  ['signInFlow', 'whole sign-in flow'],
];

/** B against A per operation over the measured rounds (pooled latencies, median rates and CPU). */
export function summarize(rounds) {
  const measured = rounds.filter((r) => !r.warmUp);
  const of = (config) => measured.filter((r) => r.config === config);
  const [a, b] = [of('A'), of('B')];
  if (a.length === 0 || b.length === 0) return null;
  const out = { measuredRounds: { A: a.length, B: b.length } };
  for (const [key] of OPERATIONS) {
    const side = (list) => {
      const latencies = sortedOf(list.flatMap((r) => [...r[key].latencies]));
      return {
        p50Ms: round(percentile(latencies, 50), 3),
        p95Ms: round(percentile(latencies, 95), 3),
        meanMs: round(mean([...latencies]), 3),
        perS: round(medianOf(list.map((r) => r[key].perS)), 1),
        roundP50Ms: list.map((r) => r[key].latencyMs.p50),
        roundPerS: list.map((r) => r[key].perS),
        apiCpuUs: medianOf(list.map((r) => r[key].apiCpuUs)),
        pgRedisCpuUs: medianOf(list.map((r) => r[key].pgRedisCpuUs)),
      };
    };
    const [sa, sb] = [side(a), side(b)];
    // Round by round (A of round r against B of round r): the difference's spread is the noise.
    const pairs = a
      .map((ra) => [ra, b.find((rb) => rb.round === ra.round)])
      .filter(([, rb]) => rb)
      .map(([ra, rb]) => Math.round(1000 * (ra[key].latencyMs.p50 - rb[key].latencyMs.p50)));
    const ratio = (x, y) => (x === null || y === null || y === 0 ? null : round(x / y, 3));
    out[key] = {
      A: sa,
      B: sb,
      p50Ratio: ratio(sb.p50Ms, sa.p50Ms),
      p95Ratio: ratio(sb.p95Ms, sa.p95Ms),
      perSRatio: ratio(sb.perS, sa.perS),
      p50DiffUs: Math.round(1000 * (sa.p50Ms - sb.p50Ms)), // A − B: what the write adds
      meanDiffUs: Math.round(1000 * (sa.meanMs - sb.meanMs)),
      roundP50DiffsUs: pairs,
      apiCpuDiffUs: sa.apiCpuUs === null || sb.apiCpuUs === null ? null : sa.apiCpuUs - sb.apiCpuUs,
      pgRedisCpuDiffUs:
        sa.pgRedisCpuUs === null || sb.pgRedisCpuUs === null
          ? null
          : sa.pgRedisCpuUs - sb.pgRedisCpuUs,
      // Every round's difference of the same sign, or not (then the noise is larger than it).
      consistent: pairs.length > 0 && (pairs.every((d) => d > 0) || pairs.every((d) => d < 0)),
    };
  }
  return out;
}

/** C's µs per INSERT as a share of A's p50 of each operation. */
function statementShares(summary, statement) {
  if (!summary || !statement) return null;
  const share = (us, key) =>
    us === null || !summary[key]?.A.p50Ms ? null : round(us / (1000 * summary[key].A.p50Ms), 4);
  return {
    ownTransaction: {
      ofSignInFormP50: share(statement.ownTransaction?.perInsertUs ?? null, 'signInForm'),
      ofKeyCreateP50: share(statement.ownTransaction?.perInsertUs ?? null, 'keys'),
    },
    writingTransaction: {
      ofKeyCreateP50: share(statement.writingTransaction?.perInsertUs ?? null, 'keys'),
      ofSignInFormP50: share(statement.writingTransaction?.perInsertUs ?? null, 'signInForm'),
    },
  };
}

// ------------------------------------------------------------------ the phase

/**
 * The `audit` phase. `apiPid()` is the API's process id now (a restarted server has another);
 * `apiFullGcs(window)` its full GCs in a window ({count, longestPauseMs}), when the server logs
 * them. `partial` gets every round as it ends.
 */
export async function auditPhase({
  apiBase,
  apiPid,
  operatorHeaders,
  databaseUrl,
  root,
  apiFullGcs = null,
  log,
  partial = {},
}) {
  const settings = auditSettings();
  partial.settings = settings;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const statementClient = new pg.Client({ connectionString: databaseUrl });
  try {
    await db.query(DROP_RULE); // a run that died in a B round leaves none behind it
    const org = await setUpOrganization({ apiBase, operatorHeaders, db, root });
    partial.organization = org.organizationId;
    const ctx = { apiBase, apiPid, apiFullGcs, db, org };
    log(
      `audit phase: ${org.organizationId}; ${settings.rounds} rounds of A (${CONFIGS.A}) and B (${CONFIGS.B}), interleaved, the first of each a warm-up; per round ${settings.keys} key creations one at a time, ${settings.concurrentKeys} at concurrency ${settings.concurrency}, ${settings.signIns} sign-ins …`,
    );
    partial.rounds = [];
    for (let r = 0; r < settings.rounds; r += 1) {
      for (const config of ['A', 'B']) {
        const measured = await measure(ctx, settings, config, r);
        partial.rounds.push(measured);
        log(`  ${roundLine(measured)}`);
      }
    }
    await configure(db, 'A');
    partial.summary = summarize(partial.rounds);

    log(
      `audit phase: C, the statement on one connection: ${settings.statements} transactions with and without it, in blocks of ${STATEMENT_BLOCK} …`,
    );
    await statementClient.connect();
    partial.statement = {
      ownTransaction: await statementCost(statementClient, org, settings.statements, []),
    };
    partial.statement.writingTransaction = await statementCost(
      statementClient,
      org,
      settings.statements,
      // A transactional WAL record: the commit is flushed whether or not the INSERT is there.
      // (An xid alone, pg_current_xact_id(), is not enough: a commit that wrote no WAL is not flushed.)
      [`SELECT pg_logical_emit_message(true, 'sas-bench-audit', '')`],
    );
    partial.statementShares = statementShares(partial.summary, partial.statement);
    const { rows } = await db.query(
      `SELECT current_setting('synchronous_commit') AS synchronous_commit,
              current_setting('fsync') AS fsync, current_setting('server_version') AS version,
              (SELECT count(*) FROM audit_events)::bigint AS audit_rows`,
    );
    partial.postgres = rows[0];
    return { ...partial };
  } finally {
    await db.query(DROP_RULE).catch(() => undefined);
    await db.end().catch(() => undefined);
    await statementClient.end().catch(() => undefined);
  }
}

// ------------------------------------------------------------------ printing

const fmt = (n, digits = 2) =>
  n === null || n === undefined
    ? '-'
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const signed = (n) => (n === null || n === undefined ? '-' : `${n > 0 ? '+' : ''}${n}`);
const pct = (share) => (share === null || share === undefined ? '-' : `${fmt(100 * share, 1)} %`);

function roundLine(r) {
  return `round ${r.round}${r.warmUp ? ' (warm-up)' : ''} ${r.config}: keys p50 ${fmt(r.keys.latencyMs.p50)} ms, ${fmt(r.keys.perS, 0)}/s; ×${r.keysConcurrent.count} concurrently ${fmt(r.keysConcurrent.perS, 0)}/s; sign-in form p50 ${fmt(r.signInForm.latencyMs.p50)} ms, flow p50 ${fmt(r.signInFlow.latencyMs.p50)} ms; ${r.auditRowsWritten} audit rows; other load ${r.keys.otherPct ?? '-'}/${r.keysConcurrent.otherPct ?? '-'}/${r.signInForm.otherPct ?? '-'} % of a core`;
}

/** The phase's figures as text; parts a failed phase did not reach are left out. */
export function auditLines(result) {
  const s = result.settings;
  const lines = [];
  if (s)
    lines.push(
      `Audit log write cost (issue 41): A = as shipped, B = the audit row's write discarded by a PostgreSQL rule`,
      `(the API still sends the INSERT and waits for it: B removes the write, not the statement's round trip).`,
      `Interleaved A B A B …, ${s.measuredRounds} measured rounds of each after one warm-up round; per round ${s.keys} key creations one at a time,`,
      `${s.concurrentKeys} with ${s.concurrency} in flight, ${s.signIns} password sign-ins one at a time${result.organization ? ` (organisation ${result.organization})` : ''}.`,
    );
  const summary = result.summary;
  if (summary) {
    const flowRequests = result.rounds?.find((r) => r.requestsPerFlow)?.requestsPerFlow;
    const names = {
      keys: 'POST /v1/api-keys, sequential',
      keysConcurrent: `POST /v1/api-keys, ${s?.concurrency ?? 8} in flight`,
      signInForm: 'sign-in: the form POST',
      signInFlow: `sign-in: whole flow${flowRequests ? ` (${flowRequests} requests)` : ''}`,
    };
    const row = (label, figure, a, b, ratio = '', diff = '', rest = '') =>
      `  ${label.padEnd(36)}${figure.padEnd(10)}${a.padStart(17)}${b.padStart(17)}${ratio.padStart(9)}${diff.padStart(15)}   ${rest}`.trimEnd();
    const ratioText = (x) => (x === null ? '-' : `${fmt(x, 3)}×`);
    const cpu = (side) => `${fmt(side.apiCpuUs, 0)} / ${fmt(side.pgRedisCpuUs, 0)}`;
    lines.push(
      '',
      row('operation', 'figure', 'A', 'B', 'B/A', 'A−B (µs)', 'A−B per round (µs, p50)'),
    );
    for (const [key] of OPERATIONS) {
      const o = summary[key];
      if (!o) continue;
      const label = [names[key]];
      const next = () => label.pop() ?? '';
      if (key !== 'keysConcurrent')
        lines.push(
          row(
            next(),
            'p50 ms',
            fmt(o.A.p50Ms, 3),
            fmt(o.B.p50Ms, 3),
            ratioText(o.p50Ratio),
            signed(o.p50DiffUs),
            `${o.roundP50DiffsUs.map(signed).join(', ')}${o.consistent ? '  (same sign every round)' : '  (signs differ: noise > difference)'}`,
          ),
          row('', 'p95 ms', fmt(o.A.p95Ms, 3), fmt(o.B.p95Ms, 3), ratioText(o.p95Ratio)),
          row('', 'mean ms', fmt(o.A.meanMs, 3), fmt(o.B.meanMs, 3), '', signed(o.meanDiffUs)),
        );
      if (key !== 'signInFlow')
        lines.push(
          row(
            next(),
            key === 'signInForm' ? 'flows/s' : 'req/s',
            fmt(o.A.perS, 1),
            fmt(o.B.perS, 1),
            ratioText(o.perSRatio),
            '',
            `rounds A ${o.A.roundPerS.map((v) => fmt(v, 0)).join(', ')}; B ${o.B.roundPerS.map((v) => fmt(v, 0)).join(', ')}`,
          ),
          row(
            '',
            'CPU µs',
            cpu(o.A),
            cpu(o.B),
            '',
            `${signed(o.apiCpuDiffUs)} / ${signed(o.pgRedisCpuDiffUs)}`,
            key === 'signInForm'
              ? 'API / PostgreSQL+Redis per whole sign-in flow'
              : 'API / PostgreSQL+Redis per request',
          ),
        );
    }
    lines.push(
      "  p50/p95/mean over every measured round's requests together; req/s and CPU: medians of the rounds (CPU from /proc, 10 ms ticks).",
      '  A−B > 0: A (with the write) slower or costlier.',
    );
  } else if (result.rounds?.length) {
    lines.push('  rounds measured so far:', ...result.rounds.map((r) => `    ${roundLine(r)}`));
  }
  const rows = result.rounds?.filter((r) => !r.warmUp);
  if (rows?.length) {
    const written = (config) => [
      ...new Set(rows.filter((r) => r.config === config).map((r) => r.auditRowsWritten)),
    ];
    lines.push(
      `  audit rows written per round: A ${written('A').join('/')} (one per operation), B ${written('B').join('/') || '-'} (the rule discarded them)`,
    );
    const others = rows
      .flatMap((r) => [r.keys, r.keysConcurrent, r.signInForm].map((f) => f.otherPct))
      .filter((v) => v !== null);
    const gcs = rows
      .flatMap((r) => [r.keys, r.keysConcurrent, r.signInForm].map((f) => f.fullGcs))
      .filter((v) => v !== null);
    if (others.length)
      lines.push(
        `  other load on the machine during the measurements: ${Math.min(...others)}–${Math.max(...others)} % of a core (median ${median(others)})${gcs.length ? `; the API's full GCs in them: ${gcs.reduce((x, y) => x + y, 0)}` : ''}`,
      );
    if (others.some((v) => v > NOISE.otherPct))
      lines.push(
        `  WARNING: other load above ${NOISE.otherPct} % of a core during ${others.filter((v) => v > NOISE.otherPct).length} of ${others.length} measurements: the figures are disturbed.`,
      );
  }
  const c = result.statement;
  if (c) {
    const shares = result.statementShares;
    lines.push(
      '',
      `  C, the statement itself, one connection, ${fmt(c.ownTransaction.transactions, 0)} transactions each, interleaved blocks of ${c.ownTransaction.blocks.size} (µs per transaction):`,
    );
    const cLine = (label, x, shareText) =>
      x &&
      lines.push(
        `    ${label}: ${fmt(x.withInsertUs, 1)} with the INSERT, ${fmt(x.withoutUs, 1)} without → ${fmt(x.perInsertUs, 1)} µs per INSERT (p50 difference ${fmt(x.perInsertP50Us, 1)}; blocks ${fmt(x.blocks.minUs, 1)} … ${fmt(x.blocks.maxUs, 1)}, median ${fmt(x.blocks.medianUs, 1)})`,
        `      ${shareText}`,
      );
    cLine(
      "BEGIN; INSERT; COMMIT against BEGIN; COMMIT (own transaction: the sign-in's case)",
      c.ownTransaction,
      `= ${pct(shares?.ownTransaction.ofSignInFormP50)} of A's sign-in form p50 (${pct(shares?.ownTransaction.ofKeyCreateP50)} of A's key-create p50)`,
    );
    cLine(
      "the same after SELECT pg_logical_emit_message(true, …) (a transaction whose commit is flushed anyway: the key creation's case)",
      c.writingTransaction,
      `= ${pct(shares?.writingTransaction.ofKeyCreateP50)} of A's key-create p50 (${pct(shares?.writingTransaction.ofSignInFormP50)} of A's sign-in form p50)`,
    );
    if (result.postgres)
      lines.push(
        `    PostgreSQL ${result.postgres.version}, synchronous_commit=${result.postgres.synchronous_commit}, fsync=${result.postgres.fsync}; audit_events holds ${Number(result.postgres.audit_rows).toLocaleString('en')} rows`,
      );
  }
  return lines;
}

// ------------------------------------------------------------------ alone: node bench/audit.mjs

async function main() {
  const { benchHeader, PhaseRunner } = await import('./phases.mjs');
  const { describeError } = await import('./errors.mjs');
  const { findDependencyPids, freePort, quietMachine } = await import('./machine.mjs');
  const services = await import('./services.mjs');
  const { ROOT } = services;
  const RESULTS = join(ROOT, 'bench', 'results', 'audit');
  const env = process.env;
  const CONFIG = {
    databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/sas_bench_audit',
    redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
    redisPrefix: 'sas-bench-audit',
    poolMax: wholeNumber('DATABASE_POOL_MAX', 10),
    clientId: 'sas-bench-audit-client',
    clientSecret: 'sas-bench-audit-secret-4e2b8d1a7c3f',
    signingKeySecret: env.SIGNING_KEY_SECRET || 'sas-bench-signing-key-secret-5c1e8a7d3f90b2e4',
    logLevel: env.BENCH_LOG_LEVEL || 'warn',
  };
  const log = (line) => process.stdout.write(`[audit] ${line}\n`);
  if (!existsSync(join(ROOT, 'dist/apps/api/src/main.js')))
    throw new Error('dist/apps/api/src/main.js is missing: run `npm run build` first');
  const runner = new PhaseRunner({
    dir: RESULTS,
    root: ROOT,
    log,
    header: benchHeader('audit', CONFIG),
  });
  let lock = null;
  let ok = false;
  try {
    const ctx = await runner.run(
      'setup',
      async (partial) => {
        const port = await freePort();
        const shared = {
          DATABASE_URL: CONFIG.databaseUrl,
          REDIS_URL: CONFIG.redisUrl,
          REDIS_PREFIX: CONFIG.redisPrefix,
          DATABASE_POOL_MAX: String(CONFIG.poolMax),
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          NODE_ENV: 'production',
          SIGNING_KEY_SECRET: CONFIG.signingKeySecret,
        };
        lock = await services.prepareDatabase(shared, 'sas-bench-audit', RESULTS);
        await findDependencyPids(lock, CONFIG.redisUrl);
        const gcLog = join(RESULTS, 'api.gc.ndjson');
        rmSync(gcLog, { force: true });
        const api = await services.startApi(shared, {
          logDir: RESULTS,
          // As bench/run.mjs runs its servers (SERVER_NODE_ARGS in bench/managed-server.mjs).
          nodeArgs: ['--no-memory-reducer', '--import', './bench/gc-log-hook.mjs'],
          env: {
            BOOTSTRAP_CLIENT_ID: CONFIG.clientId,
            BOOTSTRAP_CLIENT_SECRET: CONFIG.clientSecret,
            LOG_LEVEL: CONFIG.logLevel,
            SHUTDOWN_GRACE_MS: '3000',
            BENCH_GC_LOG: gcLog,
            ...AUDIT_API_ENV,
          },
        });
        partial.api = api.base;
        const org = await services.benchOrganization(
          api.base,
          CONFIG.clientId,
          CONFIG.clientSecret,
        );
        partial.operatorOrganization = org.organizationId;
        const fullGcs = ({ from, to }) => {
          const gcs = existsSync(gcLog)
            ? readFileSync(gcLog, 'utf8')
                .split('\n')
                .filter(Boolean)
                .map((line) => JSON.parse(line))
                .filter((gc) => gc.at >= from && gc.at <= to)
            : [];
          return {
            count: gcs.length,
            longestPauseMs: gcs.length ? Math.max(...gcs.map((gc) => gc.ms)) : null,
          };
        };
        return { api, org, fullGcs, summary: { ...partial } };
      },
      { toJson: (context) => context.summary, fatal: true },
    );
    if (ctx) {
      const result = await runner.run(
        'audit',
        async (partial) => {
          await quietMachine(30, log);
          return auditPhase({
            apiBase: ctx.api.base,
            apiPid: () => ctx.api.child.pid,
            operatorHeaders: ctx.org.readHeaders,
            databaseUrl: CONFIG.databaseUrl,
            root: ROOT,
            apiFullGcs: ctx.fullGcs,
            log,
            partial,
          });
        },
        {
          print: (r) => process.stdout.write(`\n${auditLines(r).join('\n')}\n\n`),
          printPartial: (p) => process.stdout.write(`${auditLines(p).join('\n')}\n`),
        },
      );
      ok = result !== undefined;
    } else runner.skip('audit', 'setup failed');
  } catch (error) {
    process.stderr.write(`\n[audit] ERROR outside any phase:\n${describeError(error)}\n`);
  } finally {
    await lock?.end().catch(() => undefined);
    await services.stopAll();
  }
  const allRan = runner.finish();
  process.exit(ok && allRan ? 0 : 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
