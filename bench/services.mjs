// Starting the built services (dist/) for a bench script of its own: a database of its own
// (created and migrated if missing), the API, a worker, other programs (HAProxy), and the bench
// organisation with the limits of bench/limits.mjs. Each child's output goes to
// <logDir>/<name>.log; every child still running when the script exits is killed.
// Used by bench/queue-drain.mjs, bench/memory.mjs and bench/scale.mjs.

import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { BENCH_LIMITS, assertUnthrottled } from './limits.mjs';
import { freePort } from './machine.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const children = new Set();
process.on('exit', () => {
  for (const child of children) if (running(child)) child.kill('SIGKILL');
});

export const running = (child) => child.exitCode === null && child.signalCode === null;

/**
 * `<command> <args>` from the repository, with only `childEnv` (plus PATH and HOME) as its
 * environment, its output in <logDir>/<name>.log. `ipc` opens a channel (the bench's hooks).
 */
export function startProcess(name, command, args, childEnv, { logDir, ipc = false }) {
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${name}.log`);
  const fd = openSync(logFile, 'w');
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...childEnv },
    stdio: ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  closeSync(fd);
  child.benchName = name;
  child.logFile = logFile;
  child.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  children.add(child);
  void child.exited.then(() => children.delete(child));
  return child;
}

/** `node <nodeArgs> <args>`, as startProcess. */
export const startNode = (name, args, childEnv, { nodeArgs = [], ...options }) =>
  startProcess(name, process.execPath, [...nodeArgs, ...args], childEnv, options);

export function logTail(child, lines = 30) {
  try {
    return readFileSync(child.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export async function stopChild(child, graceMs = 10_000) {
  if (!running(child)) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => running(child) && child.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

export const stopAll = () => Promise.all([...children].map((child) => stopChild(child)));

/**
 * Resolves once `url` answers 2xx (given `probe`: once `probe()` resolves to true; whatever else it
 * returns or throws is reported as what it saw); throws when the child exits first or after
 * `timeoutMs`.
 */
export async function waitReady(url, child, timeoutMs = 120_000, probe = undefined) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!running(child))
      throw new Error(`${child.benchName} exited during start-up:\n${logTail(child)}`);
    try {
      if (probe) {
        const seen = await probe();
        if (seen === true) return;
        last = String(seen);
      } else {
        const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
        await response.arrayBuffer();
        if (response.ok) return;
        last = `HTTP ${response.status}`;
      }
    } catch (error) {
      last = error.message;
    }
    await sleep(250);
  }
  throw new Error(`${child.benchName} not ready at ${url} (${last}):\n${logTail(child)}`);
}

/** One request with fetch: `{status, json, text, headers}`. */
export async function request(base, method, path, { headers = {}, body } = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: response.headers };
}

/**
 * Creates the database of `shared.DATABASE_URL` if missing, migrates it
 * (dist/apps/cli/src/migrate.js, with the services' environment `shared`) and takes the advisory
 * lock `lockName` on a connection it returns: one run per database.
 */
export async function prepareDatabase(shared, lockName, logDir) {
  const databaseUrl = shared.DATABASE_URL;
  const admin = new pg.Client({ connectionString: new URL('/postgres', databaseUrl).toString() });
  await admin.connect();
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  const migrate = startNode('migrate', ['dist/apps/cli/src/migrate.js'], shared, { logDir });
  const { code } = await migrate.exited;
  if (code !== 0) throw new Error(`migrate failed (exit ${code}):\n${logTail(migrate)}`);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const [{ locked }] = (
    await db.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [lockName])
  ).rows;
  if (!locked) {
    await db.end();
    throw new Error(`another run is using ${name} (lock ${lockName}); wait for it to end`);
  }
  return db;
}

/**
 * The API (built), ready: `{child, base, port}`. `shared` is the environment API and worker share;
 * it listens on PUBLIC_URL's port unless given `port` (an instance behind a proxy).
 */
export async function startApi(
  shared,
  {
    logDir,
    name = 'api',
    nodeArgs = [],
    ipc = false,
    env = {},
    port = Number(new URL(shared.PUBLIC_URL).port),
  },
) {
  const child = startNode(
    name,
    ['dist/apps/api/src/main.js'],
    { ...shared, PORT: String(port), SHUTDOWN_GRACE_MS: '2000', ...env },
    { logDir, nodeArgs, ipc },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${base}/health/ready`, child);
  return { child, base, port };
}

/** A worker (built), ready by its health server: `{child, startupS}`. */
export async function startWorker(
  shared,
  { logDir, name = 'worker', nodeArgs = [], ipc = false, env = {} },
) {
  const port = await freePort();
  const started = performance.now();
  const child = startNode(
    name,
    ['dist/apps/worker/src/main.js'],
    { ...shared, WORKER_HEALTH_PORT: String(port), SHUTDOWN_GRACE_MS: '3000', ...env },
    { logDir, nodeArgs, ipc },
  );
  await waitReady(`http://127.0.0.1:${port}/health/ready`, child);
  return { child, startupS: (performance.now() - started) / 1000 };
}

/**
 * The bootstrap client's token for the API, and its organisation given BENCH_LIMITS:
 * `{organizationId, readHeaders, writeHeaders}`.
 */
export async function benchOrganization(base, clientId, clientSecret) {
  const token = await request(base, 'POST', '/oauth2/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
  });
  if (token.status !== 200)
    throw new Error(`token: HTTP ${token.status} ${token.text.slice(0, 300)}`);
  const authorization = `Bearer ${token.json.access_token}`;
  const writeHeaders = { authorization, 'content-type': 'application/json' };
  const organizationId = JSON.parse(
    Buffer.from(token.json.access_token.split('.')[1], 'base64url'),
  ).org_id;
  const limited = await request(base, 'PATCH', `/v2/enterprise/organizations/${organizationId}`, {
    headers: writeHeaders,
    body: JSON.stringify(BENCH_LIMITS),
  });
  if (limited.status !== 200)
    throw new Error(`limits: HTTP ${limited.status} ${limited.text.slice(0, 300)}`);
  assertUnthrottled(limited.json, `the bench organisation ${organizationId}`);
  return { organizationId, readHeaders: { authorization }, writeHeaders };
}

/** Deletes every key under `<prefix>:` (the bench's own BullMQ queues and caches). */
export async function clearRedisPrefix(redis, prefix) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
