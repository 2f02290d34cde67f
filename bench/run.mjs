// Benchmark orchestrator: the real API (Nest, built output) against bench/reference-server.mjs,
// a minimal node:http server doing the same work. See bench/README.md.
//
//   npm run bench                      (= npm run build && node bench/run.mjs)
//   BENCH_DURATION=10 BENCH_CONNECTIONS=50 BENCH_ROUNDS=1 BENCH_WARMUP=2 node bench/run.mjs
//   BENCH_PROFILE=1 node bench/run.mjs (CPU profiles of both servers' read and create phases)
//   BENCH_WEBHOOKS=0 node bench/run.mjs (skip the webhook delivery phase, which starts the worker)
//   BENCH_LISTS=0 node bench/run.mjs    (skip GET /v2/sessions on a million seeded sessions;
//                                        BENCH_LIST_SESSIONS sets how many, default 1,000,000)
//   BENCH_ANALYSES=0 node bench/run.mjs (skip submit/*, analyses-worker and analyses-latency)
//   BENCH_PATTERNS=0 node bench/run.mjs (skip pattern recognition on 10,000 seeded analyses)
//   BENCH_DOWSING=0 node bench/run.mjs  (skip dowsing-query/* and dowsing-heatmap;
//                                        BENCH_HEATMAP_READINGS sets the readings seeded, default 1,000,000)
//   BENCH_HISTORY=0 node bench/run.mjs  (skip history search, detail, similar cases and import;
//                                        BENCH_HISTORY_CASES sets the cases seeded, default 1,000,000)
//   BENCH_REPORTS=0 node bench/run.mjs  (skip the report builds of bench/reports.mjs)
//   BENCH_AUDIT=0 node bench/run.mjs    (skip the audit log write cost of bench/audit.mjs)
//
// Every phase runs on its own: its figures are printed and saved to
// bench/results/<run>-<phase>.json as soon as it ends, and a failing phase is reported (error with
// its causes, and what it had measured) without stopping the ones after it. A server that died or
// stopped answering is restarted before the next phase. bench/results/latest.json (and
// <run>-run.json) hold the whole run so far, rewritten after every phase.
//
// Exit code: 0 when every phase ran (targets met or not), 1 when any phase failed (a server
// failing to start, dying or wedging, the parity check, more than 1 % non-2xx/errors in a phase,
// a webhook delivery missing, duplicated, not succeeded or wrongly signed, a list query failing,
// an analysis of the worker phases not completing or its events never relayed, a
// pattern-recognition request failing, a history request failing or disagreeing with the lib)
// — always after everything measured was printed and saved.

import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { rootCertificates } from 'node:tls';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Agent as UndiciAgent, request as undiciRequest } from 'undici';
import { describeError, errorToJson } from './errors.mjs';
import {
  NOISE,
  cpuMs,
  findDependencyPids,
  freePort,
  machineSnapshot,
  quietMachine,
} from './machine.mjs';
import { BENCH_LIMITS, assertUnthrottled } from './limits.mjs';
import { PhaseRunner } from './phases.mjs';
import {
  analysesLatencyLines,
  analysesLatencyPhase,
  analysesWorkerLines,
  analysesWorkerPhase,
} from './analyses.mjs';
import { AUDIT_API_ENV, auditLines, auditPhase } from './audit.mjs';
import { DOWSING_QUERY_BODY, dowsingParity } from './dowsing.mjs';
import { heatmapLines, heatmapPhase } from './dowsing-heatmap.mjs';
import { historyLines, historyPhase } from './history.mjs';
import { reportsLines, reportsPhase } from './reports.mjs';
import { patternLines, patternPhase } from './patterns.mjs';
import { printSessionListPhase, sessionListPhase } from './session-lists.mjs';
import { createCertificates } from './webhook-receiver.mjs';
import { wholeNumber } from './settings.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results');
const env = process.env;

const CONFIG = {
  databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/sas_bench',
  redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
  redisPrefix: 'sas-bench',
  duration: wholeNumber('BENCH_DURATION', 10),
  connections: wholeNumber('BENCH_CONNECTIONS', 50),
  rounds: wholeNumber('BENCH_ROUNDS', 1),
  warmup: wholeNumber('BENCH_WARMUP', 2),
  fixedRate: 1000,
  poolMax: wholeNumber('DATABASE_POOL_MAX', 10),
  logLevel: env.BENCH_LOG_LEVEL || 'warn',
  profile: env.BENCH_PROFILE === '1',
  clientId: 'sas-bench-client',
  clientSecret: 'sas-bench-secret-7f3a9c2e1b5d',
  // Production refuses to start without one. Fixed, so that what one run sealed (signing keys,
  // webhook secrets) the next one can open; SIGNING_KEY_SECRET in the environment wins.
  signingKeySecret: env.SIGNING_KEY_SECRET || 'sas-bench-signing-key-secret-5c1e8a7d3f90b2e4',
  simulatedStepMs: 500,
  webhooks: {
    enabled: env.BENCH_WEBHOOKS !== '0',
    endpoints: wholeNumber('BENCH_WEBHOOK_ENDPOINTS', 4),
    backlogSessions: wholeNumber('BENCH_WEBHOOK_SESSIONS', 1000),
    workers: wholeNumber('BENCH_WEBHOOK_WORKERS', 1), // worker processes sharing the endpoints' slots
    pacedRate: wholeNumber('BENCH_WEBHOOK_RATE', 50), // sessions/s
    pacedDuration: wholeNumber('BENCH_WEBHOOK_DURATION', 10), // s
    // The worker's own settings (passed through to it unchanged), to size the direct reference.
    endpointConcurrency: wholeNumber('WEBHOOK_ENDPOINT_CONCURRENCY', 10),
    workerConcurrency: wholeNumber('WEBHOOK_WORKER_CONCURRENCY', 100),
    // CPU profiles of the worker over the drain and the paced windows (bench/results/profiles/).
    profile: env.BENCH_WEBHOOK_PROFILE === '1',
  },
};
CONFIG.lists = {
  enabled: env.BENCH_LISTS !== '0',
  sessions: wholeNumber('BENCH_LIST_SESSIONS', 1_000_000),
  requests: wholeNumber('BENCH_LIST_REQUESTS', 200),
};
CONFIG.analyses = {
  enabled: env.BENCH_ANALYSES !== '0',
  backlog: wholeNumber('BENCH_ANALYSES_BACKLOG', 2000), // quick_scans submitted before the worker starts
  sessionBacklog: wholeNumber('BENCH_ANALYSES_SESSIONS', 1000, 0), // the same worker on sessions; 0 = skip
  pacedRate: wholeNumber('BENCH_ANALYSES_RATE', 20), // submits/s in the latency phase
  pacedDuration: wholeNumber('BENCH_ANALYSES_DURATION', 10), // s
};
CONFIG.patterns = {
  enabled: env.BENCH_PATTERNS !== '0',
  items: wholeNumber('BENCH_PATTERN_ITEMS', 10_000),
  requests: wholeNumber('BENCH_PATTERN_REQUESTS', 30),
  warmup: 3,
};
CONFIG.dowsing = {
  enabled: env.BENCH_DOWSING !== '0',
  heatmapReadings: wholeNumber('BENCH_HEATMAP_READINGS', 1_000_000),
  heatmapRequests: wholeNumber('BENCH_HEATMAP_REQUESTS', 200), // per box, timed
  heatmapWarmup: 20, // per box, untimed
};
CONFIG.history = {
  enabled: env.BENCH_HISTORY !== '0',
  cases: wholeNumber('BENCH_HISTORY_CASES', 1_000_000),
  requests: wholeNumber('BENCH_HISTORY_REQUESTS', 200), // per combination, timed
  warmup: 20, // per combination, untimed
  importRows: wholeNumber('BENCH_HISTORY_IMPORT_ROWS', 100_000, 0), // 0 = skip the import
};
// Its sizes are bench/reports.mjs's own settings (BENCH_REPORT_*).
CONFIG.reports = { enabled: env.BENCH_REPORTS !== '0' };
const TARGETS = { readRatio: 0.9, createRatio: 0.8, fixedRateP99Ms: 15 };
const MAX_ERROR_SHARE = 0.01;
const CREATE_BODY = JSON.stringify({
  type: 'remote_viewing',
  target: 'The object in the sealed envelope #4711',
});
/** POST /v1/analysis/targets: the API's own quick_scan example — no material, so nothing to fetch. */
const SUBMIT_BODY = JSON.stringify({
  target_type: 'object',
  reference_material: {},
  analysis_type: 'quick_scan',
  description: 'The sealed envelope #4711',
});

// ------------------------------------------------------------------ child processes

const children = new Set();

function startChild(name, args, childEnv, { ipc = false, append = false } = {}) {
  mkdirSync(RESULTS, { recursive: true });
  const logFile = join(RESULTS, `${name}.log`);
  // A restart appends, so the log of what went wrong before stays.
  const fd = openSync(logFile, append ? 'a' : 'w');
  if (append) writeSync(fd, `\n----- [bench] restarted at ${new Date().toISOString()} -----\n`);
  const logStart = fstatSync(fd).size;
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, ...childEnv },
    stdio: CONFIG.profile || ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  closeSync(fd);
  child.benchName = name;
  child.logFile = logFile;
  child.logStart = logStart;
  child.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  children.add(child);
  child.exited.then(() => children.delete(child));
  return child;
}

const running = (child) => child.exitCode === null && child.signalCode === null;

async function stopChild(child) {
  if (!running(child)) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => running(child) && child.kill('SIGKILL'), 8_000);
  await child.exited;
  clearTimeout(timer);
}

const stopAll = () => Promise.all([...children].map(stopChild));

process.on('exit', () => {
  for (const child of children) if (running(child)) child.kill('SIGKILL');
});

/** The last lines this child wrote (not those of an earlier process appending to the same log). */
function logTail(child, lines = 30) {
  try {
    return readFileSync(child.logFile)
      .subarray(child.logStart)
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .join('\n');
  } catch {
    return '(no log)';
  }
}

async function runToCompletion(name, args, childEnv) {
  const child = startChild(name, args, childEnv);
  const { code, signal } = await child.exited;
  if (code !== 0)
    throw new Error(`${name} failed (${signal ?? `exit ${code}`}):\n${logTail(child)}`);
}

// ------------------------------------------------------------------ helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!running(child))
      throw new Error(`${child.benchName} exited during start-up:\n${logTail(child)}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      const text = await response.text();
      if (response.ok) return;
      last = `HTTP ${response.status}: ${text.slice(0, 300)}`;
    } catch (error) {
      last = describeError(error, { frames: 0 });
    }
    await sleep(250);
  }
  throw new Error(
    `${child.benchName} not ready at ${url} after ${timeoutMs / 1000} s (${last}):\n${logTail(child)}`,
  );
}

/**
 * One request with fetch. Its deadline is generous (a loaded 2-core machine can take seconds
 * over a request between phases); what failed is named, the reason kept as the error's cause.
 */
async function request(base, method, path, { headers = {}, body, timeoutMs = 30_000 } = {}) {
  let response;
  let text;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    throw new Error(`${method} ${base}${path} failed (deadline ${timeoutMs / 1000} s)`, {
      cause: error,
    });
  }
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

function redactUrl(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function summarize(base, latencies, okCount, failures, durationS) {
  const sorted = Float64Array.from(latencies).sort();
  const total = okCount + failures.non2xx + failures.errors;
  return {
    ...base,
    durationS: Number(durationS.toFixed(2)),
    ok: okCount,
    rps: Number((okCount / durationS).toFixed(1)),
    latencyMs: {
      p50: round2(percentile(sorted, 50)),
      p90: round2(percentile(sorted, 90)),
      p99: round2(percentile(sorted, 99)),
      max: round2(sorted.length ? sorted[sorted.length - 1] : null),
    },
    non2xx: failures.non2xx,
    errors: failures.errors,
    timeouts: failures.timeouts ?? 0,
    statusCodes: failures.statusCodes ?? {},
    errorShare: total === 0 ? 1 : (failures.non2xx + failures.errors) / total,
    rawLatencies: sorted,
  };
}
const round2 = (value) => (value === null ? null : Math.round(value * 100) / 100);

/** Runs a phase; adds the server process's CPU time and how busy the rest of the machine was. */
async function measured(pid, run) {
  const from = Date.now();
  const before = cpuMs(pid);
  const machineBefore = machineSnapshot();
  const benchBefore = process.cpuUsage();
  const started = performance.now();
  const result = await run();
  const wallMs = performance.now() - started;
  const after = cpuMs(pid);
  const machineAfter = machineSnapshot();
  const bench = process.cpuUsage(benchBefore);
  const serverCpuMs = before === null || after === null ? null : after - before;
  let machine = null;
  if (machineBefore && machineAfter && serverCpuMs !== null) {
    const delta = (key) => machineAfter[key] - machineBefore[key];
    let databasesMs = 0; // processes that started during the phase count in full
    for (const [pid, ms] of machineAfter.databases)
      databasesMs += ms - (machineBefore.databases.get(pid) ?? 0);
    const pct = (ms) => Math.round((100 * ms) / wallMs); // % of one core
    const generatorMs = (bench.user + bench.system) / 1000;
    machine = {
      busyPct: pct(delta('busyMs')),
      stealPct: pct(delta('stealMs')),
      serverPct: pct(serverCpuMs),
      generatorPct: pct(generatorMs),
      databasesPct: pct(databasesMs),
      otherPct: Math.max(0, pct(delta('busyMs') - serverCpuMs - generatorMs - databasesMs)),
    };
  }
  return { ...result, serverCpuMs, machine, window: { from, to: Date.now() } };
}

// ------------------------------------------------------------------ load generators

/** Closed-loop load: `connections` keep-alive connections, each sending its next request when the previous one answered. */
async function cannon(target, { duration, connections, overallRate }) {
  const latencies = [];
  let ok = 0;
  const instance = autocannon({
    url: `${target.base}${target.path}`,
    method: target.method,
    headers: target.headers,
    body: target.body,
    duration,
    connections,
    pipelining: 1,
    timeout: 10,
    ...(overallRate ? { overallRate, ignoreCoordinatedOmission: true } : {}),
  });
  // Our own latency record (float ms, 2xx only): autocannon's histogram keeps whole milliseconds.
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) {
      ok += 1;
      latencies.push(responseTime);
    }
  });
  const result = await instance;
  return {
    latencies,
    ok,
    durationS: result.duration,
    failures: {
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: result.statusCodeStats,
    },
  };
}

/**
 * A lean keep-alive HTTP/1.1 client for the paced run (much cheaper per request than
 * node:http's client, so the load generator steals less CPU on a small machine). Each socket
 * carries one request at a time; requests wait in a FIFO when all `maxSockets` are busy.
 * Responses must carry Content-Length (both servers send it).
 */
class RawClient {
  constructor(base, maxSockets) {
    const { hostname, port } = new URL(base);
    this.host = hostname;
    this.port = Number(port);
    this.maxSockets = maxSockets;
    this.idle = [];
    this.open = 0;
    this.waiting = [];
  }

  /** Resolves with the status code (0 on a socket error). */
  send(payload) {
    return new Promise((resolve) => {
      const job = { payload, resolve, retried: false };
      const conn = this.idle.pop();
      if (conn) this.#start(conn, job);
      else if (this.open < this.maxSockets) this.#start(this.#connect(), job);
      else this.waiting.push(job);
    });
  }

  #connect() {
    this.open += 1;
    const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
    const conn = {
      socket,
      job: null,
      buf: null,
      headerEnd: -1,
      bodyLength: 0,
      status: 0,
      close: false,
      used: false,
      dead: false,
    };
    socket.on('data', (chunk) => this.#onData(conn, chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      conn.dead = true;
      this.open -= 1;
      const index = this.idle.indexOf(conn);
      if (index >= 0) this.idle.splice(index, 1);
      const job = conn.job;
      conn.job = null;
      if (!job) return;
      // The server closed an idle keep-alive socket just as we reused it: retry once on a new one.
      if (conn.used && conn.buf === null && !job.retried) {
        job.retried = true;
        this.#start(this.#connect(), job);
      } else job.resolve(0);
    });
    return conn;
  }

  #start(conn, job) {
    conn.job = job;
    conn.buf = null;
    conn.headerEnd = -1;
    conn.socket.write(job.payload);
  }

  #onData(conn, chunk) {
    if (!conn.job) return;
    conn.buf = conn.buf === null ? chunk : Buffer.concat([conn.buf, chunk]);
    if (conn.headerEnd < 0) {
      conn.headerEnd = conn.buf.indexOf('\r\n\r\n');
      if (conn.headerEnd < 0) return;
      const head = conn.buf.toString('latin1', 0, conn.headerEnd).toLowerCase();
      conn.status = Number(head.slice(9, 12));
      conn.bodyLength = Number(/\r\ncontent-length:\s*(\d+)/.exec(head)?.[1] ?? 0);
      conn.close = /\r\nconnection:\s*close/.test(head);
    }
    if (conn.buf.length < conn.headerEnd + 4 + conn.bodyLength) return;
    const job = conn.job;
    conn.job = null;
    conn.buf = null;
    conn.used = true;
    if (conn.close) conn.socket.destroy();
    else {
      const next = this.waiting.shift();
      if (next) this.#start(conn, next);
      else this.idle.push(conn); // LIFO: few sockets stay hot, the rest may time out and close
    }
    job.resolve(conn.status);
  }

  destroy() {
    for (const conn of this.idle) conn.socket.destroy();
  }
}

/**
 * Open-loop load at a fixed rate: requests start on an even schedule (checked every ~1 ms)
 * whatever the previous ones are doing. Latency runs from the moment a request is issued,
 * so time spent waiting for a free connection counts.
 */
async function paced(target, { rate, duration, client }) {
  const headerLines = Object.entries({
    host: new URL(target.base).host,
    ...target.headers,
    ...(target.body ? { 'content-length': Buffer.byteLength(target.body) } : {}),
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const payload = Buffer.from(
    `${target.method} ${target.path} HTTP/1.1\r\n${headerLines}\r\n${target.body ?? ''}`,
  );
  const total = rate * duration;
  const latencies = [];
  const failures = { non2xx: 0, errors: 0, timeouts: 0, statusCodes: {} };
  let ok = 0;
  let sent = 0;
  let settled = 0;
  const start = performance.now();
  let lastSettle = start;
  await new Promise((finish) => {
    let deadline;
    const resolve = () => {
      clearTimeout(deadline);
      finish();
    };
    const fire = () => {
      sent += 1;
      const t0 = performance.now();
      client.send(payload).then((status) => {
        if (settled < 0) return;
        const now = performance.now();
        if (status === 0) failures.errors += 1;
        else {
          failures.statusCodes[status] = { count: (failures.statusCodes[status]?.count ?? 0) + 1 };
          if (status >= 200 && status < 300) {
            ok += 1;
            latencies.push(now - t0);
          } else failures.non2xx += 1;
        }
        settled += 1;
        lastSettle = now;
        if (settled === total) resolve();
      });
    };
    // Never hang on a stalled server: whatever has not answered 15 s after the last send is a timeout.
    deadline = setTimeout(
      () => {
        failures.timeouts = total - settled;
        failures.errors += total - settled;
        settled = -Infinity; // late answers no longer count
        resolve();
      },
      duration * 1000 + 15_000,
    );
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000));
      while (sent < due) fire();
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  // Achieved rate: completions over the span from the first send to the last answer.
  return { latencies, ok, durationS: (lastSettle - start) / 1000, failures };
}

// ------------------------------------------------------------------ servers

/** Local ports of a process's TCP sockets (Linux /proc), to find its database connections. */
function socketPorts(pid) {
  const inodes = new Set();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.add(match[1]);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return [];
  }
  const ports = [];
  for (const file of ['tcp', 'tcp6']) {
    try {
      for (const line of readFileSync(`/proc/${pid}/net/${file}`, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        if (fields.length > 9 && inodes.has(fields[9]))
          ports.push(Number.parseInt(fields[1].split(':')[1], 16));
      }
    } catch {
      // no such table
    }
  }
  return ports;
}

/**
 * What a process's database connections are doing (pg_stat_activity, matched by its sockets'
 * ports), in one paragraph: the state that explains a server which stopped answering.
 */
async function databaseConnections(db, pid) {
  const ports = pid ? socketPorts(pid) : [];
  if (!db || ports.length === 0) return null;
  let rows;
  try {
    ({ rows } = await withTimeout(
      db.query(
        `SELECT state, extract(epoch FROM now() - state_change)::int AS seconds,
                left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
           FROM pg_stat_activity WHERE client_port = ANY($1::int[]) ORDER BY state_change`,
        [ports],
      ),
      10_000,
      'pg_stat_activity',
    ));
  } catch (error) {
    return `its database connections could not be read: ${describeError(error, { oneLine: true })}`;
  }
  if (rows.length === 0) return 'it holds no database connection';
  const states = new Map();
  for (const row of rows) {
    const entry = states.get(row.state) ?? { count: 0, seconds: 0, queries: new Map() };
    entry.count += 1;
    entry.seconds = Math.max(entry.seconds, row.seconds);
    entry.queries.set(row.query, (entry.queries.get(row.query) ?? 0) + 1);
    states.set(row.state, entry);
  }
  const detail = (entry) =>
    `for up to ${entry.seconds} s; last statement: ${[...entry.queries].sort((a, b) => b[1] - a[1])[0][0]}`;
  const stuck = rows.every((row) => row.state === 'idle in transaction' && row.seconds >= 5);
  if (stuck)
    return `its connection pool looks deadlocked: all ${rows.length} of its database connections are idle in transaction (${detail(states.get('idle in transaction'))}), held by transactions the process no longer advances (each waiting for another connection from the same pool)`;
  const parts = [...states].map(([state, entry]) => `${entry.count} ${state} (${detail(entry)})`);
  return `its ${rows.length} database connections: ${parts.join('; ')}`;
}

/** A readiness answer in short: the checks that are down (the API's), or the start of the body. */
function readiness(text) {
  try {
    const down = JSON.parse(text).error;
    if (down && typeof down === 'object')
      return `down: ${Object.entries(down)
        .map(([check, detail]) => `${check} (${detail?.message ?? detail?.status ?? '?'})`)
        .join(', ')}`;
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}

/**
 * Every server the phases load runs with these. `--no-memory-reducer`: V8's memory reducer gives a
 * process whose allocation has dropped (one that has gone idle) a full garbage collection some
 * seconds later. The servers take turns, so an idle one's collection landed in another's phase,
 * and on two cores its marking took both: in one run the paced read's p99 went from about 5 ms to
 * 30 ms when the idle second API collected. Under load the reducer does not act, so turning it off
 * changes nothing a phase measures but that. The hook logs each full collection (gc-log-hook.mjs).
 */
const SERVER_NODE_ARGS = ['--no-memory-reducer', '--import', './bench/gc-log-hook.mjs'];

/** The full garbage collections of a server's log (gc-log-hook.mjs) that started in `window`. */
function fullGcsIn(logFile, { from, to }) {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((gc) => gc.at >= from && gc.at <= to);
}

/** How many full collections `gcs` holds and the longest main-thread pause among them. */
function fullGcSummary(gcs) {
  const pauses = gcs.map((gc) => gc.ms);
  return {
    count: pauses.length,
    longestPauseMs: pauses.length ? Number(Math.max(...pauses).toFixed(1)) : null,
  };
}

/**
 * A server the phases load (the API, the API without request limits, the reference): started
 * once, checked after every phase that loaded it, and restarted before the next phase that needs
 * it when it died or stopped answering (the phase that broke it fails; the others still measure).
 */
function managedServer({ runner, db, name, port, args, childEnv, readyPath }) {
  const base = `http://127.0.0.1:${port}`;
  const gcLog = join(RESULTS, `${name}.gc.ndjson`);
  const server = {
    name,
    base,
    child: null,
    /** Its full garbage collections that started in `window` ({from, to}, epoch ms). */
    fullGcs: (window) => fullGcsIn(gcLog, window),
    get pid() {
      return server.child?.pid ?? null;
    },
    async start({ append = false } = {}) {
      if (!append) rmSync(gcLog, { force: true });
      server.child = startChild(
        name,
        [...SERVER_NODE_ARGS, ...args],
        { ...childEnv, PORT: String(port), BENCH_GC_LOG: gcLog },
        { append },
      );
      await waitFor(`${base}${readyPath}`, server.child);
    },
    /** null when it answers its readiness check within `deadlineMs`, else what is wrong. */
    async problem(deadlineMs = 30_000) {
      const child = server.child;
      const deadline = Date.now() + deadlineMs;
      let last;
      for (;;) {
        if (!running(child))
          return `${name} exited (${child.signalCode ?? `exit ${child.exitCode}`}); the end of bench/results/${name}.log:\n${logTail(child)}`;
        try {
          const response = await fetch(`${base}${readyPath}`, {
            signal: AbortSignal.timeout(5_000),
          });
          const text = await response.text();
          if (response.ok) return null;
          last = `HTTP ${response.status} ${readiness(text)}`;
        } catch (error) {
          last = describeError(error, { oneLine: true });
        }
        if (Date.now() >= deadline) break;
        await sleep(500);
      }
      const connections = await databaseConnections(db, child.pid);
      return `${name} has not been ready for ${deadlineMs / 1000} s${connections ? ` — ${connections}` : ''} (GET ${readyPath}: ${last})`;
    },
    /** At the end of a phase that loaded it: throws when it died or stopped answering. */
    async assertHealthy() {
      const problem = await server.problem();
      if (problem) throw new Error(`after this phase, ${problem}`);
    },
    /** Before a phase that needs it: restarts it when it died or stopped answering. */
    async ensure(before) {
      const problem = await server.problem();
      if (problem === null) return;
      log(`${name} is unusable before ${before}, restarting it: ${problem}`);
      runner.restarted({ server: name, before, reason: problem });
      await stopChild(server.child);
      await server.start({ append: true }); // when it cannot start, the phase fails saying why
      log(`${name} restarted (pid ${server.pid}).`);
    },
  };
  return server;
}

// ------------------------------------------------------------------ main

async function main(runner) {
  const ctx = await runner.run('setup', (partial) => setUp(runner, partial), {
    toJson: (context) => context.summary,
    fatal: true,
  });
  if (!ctx) {
    runner.skip('every other phase', 'setup failed');
    return;
  }
  let completer = null;
  try {
    await runner.run('parity', () => parityCheck(ctx), {
      print: () =>
        log(
          `Parity check passed: same read body, same create${CONFIG.analyses.enabled ? ' and submit' : ''} response shape, equivalent sessions${CONFIG.analyses.enabled ? ', analyses' : ''} and events rows${CONFIG.dowsing.enabled ? '; the same dowsing query body and equivalent dowsing_queries, events and dowsing_readings rows' : ''}.`,
        ),
    });

    // Stands in for a worker finishing sessions and analyses: none runs during the HTTP phases,
    // and every create or submit would otherwise stay initiated or queued (cheap counts, no
    // growing backlog for the worker). Both servers' work ends the same way (failed, cancelled);
    // the seed session is kept.
    completer = await startCompleter(ctx.sessionId, ctx.organizationId);

    await runner.run('warm-up', (partial) => warmUp(ctx, partial));
    const raw = await httpPhases(runner, ctx);

    // Webhook delivery: once, after every round (it starts the worker, which would disturb them).
    let webhooks = null;
    if (CONFIG.webhooks.enabled)
      webhooks = await runner.run('webhooks', (partial) => webhookPhase(ctx, partial), {
        print: (result) => process.stdout.write(`\n${webhookLines(result).join('\n')}\n\n`),
        printPartial: (partial) => process.stdout.write(`${webhookLines(partial).join('\n')}\n`),
      });
    else runner.skip('webhooks', 'BENCH_WEBHOOKS=0');

    const completerError = await completer.stop();
    completer = null;
    if (completerError)
      log(`note: the completer failed: ${describeError(completerError, { oneLine: true })}`);

    // Analyses through the worker: a backlog drained, then paced submits (no completer now, so
    // what the phases submit stays queued for the worker they start).
    let analysesWorker = null;
    let analysesLatency = null;
    if (CONFIG.analyses.enabled) {
      const tools = analysesTools(ctx);
      analysesWorker = await runner.run(
        'analyses-worker',
        (partial) => analysesWorkerPhase(ctx, tools, CONFIG.analyses, partial),
        {
          print: (result) =>
            process.stdout.write(`\n${analysesWorkerLines(result).join('\n')}\n\n`),
          printPartial: (partial) =>
            process.stdout.write(`${analysesWorkerLines(partial).join('\n')}\n`),
        },
      );
      analysesLatency = await runner.run(
        'analyses-latency',
        (partial) => analysesLatencyPhase(ctx, tools, CONFIG.analyses, partial),
        {
          print: (result) =>
            process.stdout.write(`\n${analysesLatencyLines(result).join('\n')}\n\n`),
          printPartial: (partial) =>
            process.stdout.write(`${analysesLatencyLines(partial).join('\n')}\n`),
        },
      );
    } else {
      runner.skip('analyses-worker', 'BENCH_ANALYSES=0');
      runner.skip('analyses-latency', 'BENCH_ANALYSES=0');
    }

    let patterns = null;
    if (CONFIG.patterns.enabled)
      patterns = await runner.run(
        'pattern-recognition',
        async (partial) => {
          await ctx.api.ensure('pattern-recognition');
          await quietMachine();
          const result = await patternPhase({
            apiBase: ctx.api.base,
            operatorHeaders: ctx.readHeaders,
            db: ctx.db,
            root: ROOT,
            ...CONFIG.patterns,
            log,
            partial,
          });
          await ctx.api.assertHealthy();
          return result;
        },
        {
          print: (result) => process.stdout.write(`\n${patternLines(result).join('\n')}\n\n`),
          printPartial: (partial) => process.stdout.write(`${patternLines(partial).join('\n')}\n`),
        },
      );
    else runner.skip('pattern-recognition', 'BENCH_PATTERNS=0');

    let heatmaps = null;
    if (CONFIG.dowsing.enabled)
      heatmaps = await runner.run(
        'dowsing-heatmap',
        async (partial) => {
          await ctx.api.ensure('dowsing-heatmap');
          await quietMachine();
          const result = await heatmapPhase({
            apiBase: ctx.api.base,
            operatorHeaders: ctx.readHeaders,
            db: ctx.db,
            root: ROOT,
            readings: CONFIG.dowsing.heatmapReadings,
            requests: CONFIG.dowsing.heatmapRequests,
            warmup: CONFIG.dowsing.heatmapWarmup,
            log,
            partial,
          });
          await ctx.api.assertHealthy();
          return result;
        },
        {
          print: (result) => process.stdout.write(`\n${heatmapLines(result).join('\n')}\n\n`),
          printPartial: (partial) => process.stdout.write(`${heatmapLines(partial).join('\n')}\n`),
        },
      );
    else runner.skip('dowsing-heatmap', 'BENCH_DOWSING=0');

    let history = null;
    if (CONFIG.history.enabled)
      history = await runner.run(
        'history',
        async (partial) => {
          await ctx.api.ensure('history');
          await ctx.reference.ensure('history');
          await quietMachine();
          const result = await historyPhase({
            apiBase: ctx.api.base,
            operatorHeaders: ctx.readHeaders,
            db: ctx.db,
            databaseUrl: CONFIG.databaseUrl,
            poolMax: CONFIG.poolMax,
            root: ROOT,
            ...CONFIG.history,
            referenceBase: ctx.reference.base,
            apiFullGcs: (window) => fullGcSummary(ctx.api.fullGcs(window)),
            log,
            partial,
          });
          await ctx.api.assertHealthy();
          return result;
        },
        {
          print: (result) => process.stdout.write(`\n${historyLines(result).join('\n')}\n\n`),
          printPartial: (partial) => process.stdout.write(`${historyLines(partial).join('\n')}\n`),
        },
      );
    else runner.skip('history', 'BENCH_HISTORY=0');

    // Reports (issue 16): the worker's lib in a child process, on a database of its own.
    let reports = null;
    if (CONFIG.reports.enabled)
      reports = await runner.run(
        'reports',
        async (partial) => {
          await quietMachine();
          return reportsPhase({ log, partial });
        },
        {
          print: (result) => process.stdout.write(`\n${reportsLines(result).join('\n')}\n\n`),
          printPartial: (partial) => process.stdout.write(`${reportsLines(partial).join('\n')}\n`),
        },
      );
    else runner.skip('reports', 'BENCH_REPORTS=0');

    // Audit log write cost (issue 41): bench/audit.mjs, on the API, A/B against a PostgreSQL rule.
    if (env.BENCH_AUDIT !== '0')
      await runner.run(
        'audit',
        async (partial) => {
          await ctx.api.ensure('audit');
          await quietMachine();
          const result = await auditPhase({
            apiBase: ctx.api.base,
            apiPid: () => ctx.api.pid,
            operatorHeaders: ctx.readHeaders,
            databaseUrl: CONFIG.databaseUrl,
            root: ROOT,
            apiFullGcs: (window) => fullGcSummary(ctx.api.fullGcs(window)),
            log,
            partial,
          });
          await ctx.api.assertHealthy();
          return result;
        },
        {
          print: (result) => process.stdout.write(`\n${auditLines(result).join('\n')}\n\n`),
          printPartial: (partial) => process.stdout.write(`${auditLines(partial).join('\n')}\n`),
        },
      );
    else runner.skip('audit', 'BENCH_AUDIT=0');

    let lists = null;
    if (CONFIG.lists.enabled)
      lists = await runner.run(
        'session-lists',
        async (partial) => {
          await ctx.api.ensure('session-lists');
          const result = await sessionListPhase({
            apiBase: ctx.api.base,
            operatorHeaders: ctx.readHeaders,
            shared: ctx.shared,
            count: CONFIG.lists.sessions,
            requests: CONFIG.lists.requests,
            warmup: 20,
            apiFullGcs: (window) => fullGcSummary(ctx.api.fullGcs(window)),
            log,
            partial,
          });
          await ctx.api.assertHealthy();
          return result;
        },
        {
          print: (result) => printSessionListPhase(result),
          printPartial: (partial) => partial.rows?.length && printSessionListPhase(partial),
        },
      );
    else runner.skip('session-lists', 'BENCH_LISTS=0');

    const report = buildReport(raw, {
      sessionId: ctx.sessionId,
      organizationId: ctx.organizationId,
      dbName: ctx.dbName,
      api: ctx.api.base,
      reference: ctx.reference.base,
    });
    report.webhooks = webhooks ?? null;
    report.analysesWorker = analysesWorker ?? null;
    report.analysesLatency = analysesLatency ?? null;
    report.patternRecognition = patterns ?? null;
    report.dowsingHeatmap = heatmaps ?? null;
    report.history = history ?? null;
    report.reports = reports ?? null;
    report.sessionLists = lists ?? null;
    printReport(report);
    runner.saveRun({ report });
    log(
      `Server logs in bench/results/{api,api-unlimited,reference,worker,worker-analyses,worker-sessions,worker-latency}.log.`,
    );
    if (CONFIG.profile) {
      log(
        `CPU profiles (round 1): bench/results/profiles/{service,reference}-{read,create}.cpuprofile`,
      );
      log(
        'Summarise with: node bench/profile-summary.mjs bench/results/profiles/service-read.cpuprofile',
      );
    }
  } finally {
    if (completer) await completer.stop();
    await ctx.db.end().catch(() => undefined);
  }
}

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
async function setUp(runner, partial) {
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
async function warmUp(ctx, partial) {
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

/** One line per HTTP phase, printed as it ends. */
function rowLine(row) {
  const fmt = (n, digits = 2) =>
    n === null || n === undefined
      ? '-'
      : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `  → ${row.label} on ${row.server}: ${fmt(row.rps, 0)} req/s, p50 ${fmt(row.latencyMs.p50)} ms, p90 ${fmt(row.latencyMs.p90)} ms, p99 ${fmt(row.latencyMs.p99)} ms, max ${fmt(row.latencyMs.max, 1)} ms; ${row.non2xx} non-2xx, ${row.errors} errors${row.timeouts ? ` (${row.timeouts} timeouts)` : ''}${Object.keys(row.statusCodes).some((code) => code >= 300) ? ` ${JSON.stringify(row.statusCodes)}` : ''}; server CPU ${row.serverCpu?.percentOfOneCore ?? '-'} % of a core, ${row.serverCpu?.usPerRequest ?? '-'} µs/request${row.fullGcs ? `; ${row.fullGcs.count} full GC${row.fullGcs.count === 1 ? '' : 's'} of the server${row.fullGcs.count ? ` (longest pause ${fmt(row.fullGcs.longestPauseMs, 1)} ms)` : ''}` : ''}`;
}

/**
 * The HTTP phases, each on its own (see PhaseRunner): read on both servers, the read without
 * request limits and with an API key, the fixed-rate runs, create on both servers; ABBA order.
 * Returns every measurement, with `failed` set on those of failed phases.
 */
async function httpPhases(runner, ctx) {
  const { api, unlimited, reference, sessionId, readHeaders, writeHeaders, apiKeyHeaders } = ctx;
  const servers = { service: api, reference };
  const read = (server, headers = readHeaders) => ({
    base: server.base,
    method: 'GET',
    path: `/v1/sessions/${sessionId}`,
    headers,
  });
  const create = (server) => ({
    base: server.base,
    method: 'POST',
    path: '/v1/sessions',
    headers: writeHeaders,
    body: CREATE_BODY,
  });
  const submit = (server) => ({
    base: server.base,
    method: 'POST',
    path: '/v1/analysis/targets',
    headers: writeHeaders,
    body: SUBMIT_BODY,
  });
  const dowse = (server) => ({
    base: server.base,
    method: 'POST',
    path: '/v1/dowsing/query',
    headers: writeHeaders,
    body: DOWSING_QUERY_BODY,
  });
  const raw = []; // { phase, server, round, failed, latencies, ok, durationS, failures, serverCpuMs, machine }

  const profileToggle = async (round, managed, server, phase, start, entry) => {
    if (!CONFIG.profile || round !== 1) return;
    const child = managed.child;
    const file = join(ctx.profileDir, `${server}-${phase}.cpuprofile`);
    if (entry) {
      // Sidecar for profile-summary.mjs (per-request costs).
      const requests = entry.ok + entry.failures.non2xx;
      writeFileSync(
        file.replace(/\.cpuprofile$/, '.json'),
        `${JSON.stringify({ server, phase, requests, durationS: entry.durationS })}\n`,
      );
    }
    const answered = new Promise((resolve) => {
      const onMessage = (message) => {
        if (message?.profileStarted || message?.profileWritten) {
          child.off('message', onMessage);
          resolve();
        }
      };
      child.on('message', onMessage);
    });
    child.send(start ? { profile: 'start' } : { profile: 'stop', file });
    await Promise.race([answered, sleep(15_000)]);
  };

  /**
   * One phase: `managed` restarted first if it is unusable; `measure(timed)` runs the load,
   * wrapping the timed part in `timed(load)`. Fails on more than 1 % non-2xx/errors, or when the
   * server is unusable afterwards; either way its figures are kept.
   */
  const phase = async (
    name,
    server,
    round,
    managed,
    measure,
    { profile = false, what = name } = {},
  ) => {
    let entry = null;
    const result = await runner.run(
      `${name}/${server}${CONFIG.rounds > 1 ? `#${round}` : ''}`,
      async (partial) => {
        await managed.ensure(`${name} on ${server}`);
        await quietMachine();
        log(
          `${what.padEnd(6)} on ${server.padEnd(9)} ${CONFIG.rounds > 1 ? `(round ${round}) ` : ''}for ${CONFIG.duration} s …`,
        );
        if (profile) await profileToggle(round, managed, server, name, true);
        entry = { phase: name, server, round, failed: true };
        raw.push(entry);
        Object.assign(entry, await measure((load) => measured(managed.pid, load)));
        if (entry.window) entry.fullGcs = managed.fullGcs(entry.window);
        if (profile) await profileToggle(round, managed, server, name, false, entry);
        const row = rowOf(entry);
        Object.assign(partial, row);
        if (row.errorShare > MAX_ERROR_SHARE) {
          const throttled = row.statusCodes['429']
            ? ' — 429: a request limit refused them (see the limits in bench/limits.mjs)'
            : '';
          throw new Error(
            `${(row.errorShare * 100).toFixed(1)} % of the requests failed (at most ${MAX_ERROR_SHARE * 100} % allowed): ${row.non2xx} non-2xx, ${row.errors} errors (${row.timeouts} timeouts); status codes ${JSON.stringify(row.statusCodes)}${throttled}; see bench/results/${managed.name}.log`,
          );
        }
        await managed.assertHealthy();
        return entry;
      },
      {
        toJson: rowOf,
        print: (measurement) => log(rowLine(rowOf(measurement))),
        printPartial: (row) => row.label && log(rowLine(row)),
      },
    );
    // A failed phase's measurement is kept for the table, but counts in no ratio or target.
    if (entry) entry.failed = result === undefined;
  };

  for (let round = 1; round <= CONFIG.rounds; round++) {
    // ABBA order (reversed on even rounds) so drift and after-effects do not favour one side.
    const firstRead = round % 2 === 1 ? ['service', 'reference'] : ['reference', 'service'];
    for (const server of firstRead)
      await phase(
        'read',
        server,
        round,
        servers[server],
        (timed) => timed(() => cannon(read(servers[server]), CONFIG)),
        { profile: true },
      );

    await phase(
      'read-unlimited',
      'service',
      round,
      unlimited,
      (timed) => timed(() => cannon(read(unlimited), CONFIG)),
      { what: 'read without request limits' },
    );

    await phase(
      'read-api-key',
      'service',
      round,
      api,
      (timed) => timed(() => cannon(read(api, apiKeyHeaders), CONFIG)),
      { what: 'read with an API key' },
    );

    for (const server of firstRead)
      await phase(
        'fixed-paced',
        server,
        round,
        servers[server],
        async (timed) => {
          const target = read(servers[server]);
          const client = new RawClient(target.base, CONFIG.connections);
          try {
            await paced(target, { rate: CONFIG.fixedRate, duration: 1, client }); // open the sockets
            return await timed(() =>
              paced(target, { rate: CONFIG.fixedRate, duration: CONFIG.duration, client }),
            );
          } finally {
            client.destroy();
          }
        },
        { what: 'read @ fixed rate' },
      );

    await phase(
      'fixed-autocannon',
      'service',
      round,
      api,
      (timed) => timed(() => cannon(read(api), { ...CONFIG, overallRate: CONFIG.fixedRate })),
      { what: 'read @ fixed rate (autocannon overallRate)' },
    );

    for (const server of [...firstRead].reverse())
      await phase(
        'create',
        server,
        round,
        servers[server],
        (timed) => timed(() => cannon(create(servers[server]), CONFIG)),
        { profile: true },
      );

    // Right after the creates, in the opposite order: create B, create A, submit A, submit B.
    if (CONFIG.analyses.enabled)
      for (const server of firstRead)
        await phase(
          'submit',
          server,
          round,
          servers[server],
          (timed) => timed(() => cannon(submit(servers[server]), CONFIG)),
          { profile: true },
        );

    // Then the dowsing queries, in the opposite order again: … submit A, submit B, dowse B, dowse A.
    if (CONFIG.dowsing.enabled)
      for (const server of [...firstRead].reverse())
        await phase(
          'dowsing-query',
          server,
          round,
          servers[server],
          (timed) => timed(() => cannon(dowse(servers[server]), CONFIG)),
          { profile: true, what: 'dowsing query' },
        );
  }
  return raw;
}

/**
 * Ends the bench organisation's initiated sessions — and, with BENCH_ANALYSES, its queued
 * analyses — every 50 ms until stopped (see its use). A failed pass is retried (a pool
 * reconnects); stop() resolves with the first error, if any.
 */
async function startCompleter(keptPublicId, organizationPublicId) {
  const kept = uuidOf(keptPublicId);
  const organization = uuidOfOrganization(organizationPublicId);
  const pool = new pg.Pool({ connectionString: CONFIG.databaseUrl, max: 1 });
  pool.on('error', () => undefined);
  let stopped = false;
  let firstError = null;
  const loop = (async () => {
    while (!stopped) {
      try {
        await pool.query(
          `UPDATE sessions SET status = 'failed', failure_reason = 'cancelled',
                  completed_at = now(), updated_at = now()
            WHERE organization_id = $1 AND mode = 'live' AND status = 'initiated' AND id <> $2`,
          [organization, kept],
        );
        // The analyses twin: as AnalysesService.cancel leaves a row (no event: nobody listens).
        if (CONFIG.analyses.enabled)
          await pool.query(
            `UPDATE analyses SET status = 'failed', failure_reason = 'cancelled',
                    failure_message = 'The analysis was cancelled', completed_at = now(), updated_at = now()
              WHERE organization_id = $1 AND mode = 'live' AND status = 'queued'`,
            [organization],
          );
      } catch (error) {
        if (!firstError) {
          firstError = error;
          log(`completer: ${describeError(error, { oneLine: true })} (retrying)`);
        }
        await sleep(1_000);
      }
      await sleep(50);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await pool.end().catch(() => undefined);
      return firstError;
    },
  };
}

/** Proves both servers do the same thing before timing them. */
async function parityCheck({ api, reference, sessionId, readHeaders, writeHeaders, db }) {
  const [apiBase, refBase] = [api.base, reference.base];
  const fail = (message) => {
    throw new Error(`parity check failed: ${message}`);
  };
  const REQUEST_ID = /^req_[0-9a-z]{26}$/;
  const reads = await Promise.all(
    [apiBase, refBase].map((base) =>
      request(base, 'GET', `/v1/sessions/${sessionId}`, { headers: readHeaders }),
    ),
  );
  for (const [i, read] of reads.entries()) {
    if (read.status !== 200)
      fail(`${i ? 'reference' : 'service'} read: HTTP ${read.status} ${read.text.slice(0, 300)}`);
    if (!REQUEST_ID.test(read.headers.get('x-request-id') ?? ''))
      fail(`${i ? 'reference' : 'service'} read: no req_ X-Request-Id`);
  }
  if (!isDeepStrictEqual(reads[0].json, reads[1].json))
    fail(`read bodies differ:\n  service   ${reads[0].text}\n  reference ${reads[1].text}`);

  const denied = await request(refBase, 'GET', `/v1/sessions/${sessionId}`, {
    headers: { authorization: `Bearer ${readHeaders.authorization.slice(7, -4)}AAAA` },
  });
  if (denied.status !== 401) fail(`reference accepted a tampered token (HTTP ${denied.status})`);

  const creates = await Promise.all(
    [apiBase, refBase].map((base) =>
      request(base, 'POST', '/v1/sessions', { headers: writeHeaders, body: CREATE_BODY }),
    ),
  );
  for (const [i, created] of creates.entries()) {
    if (created.status !== 201)
      fail(
        `${i ? 'reference' : 'service'} create: HTTP ${created.status} ${created.text.slice(0, 300)}`,
      );
  }
  const shape = (body) =>
    Object.entries(body).map(([key, value]) => [key, key === 'status' ? value : typeof value]);
  if (!isDeepStrictEqual(shape(creates[0].json), shape(creates[1].json)))
    fail(
      `create bodies differ in shape:\n  service   ${creates[0].text}\n  reference ${creates[1].text}`,
    );

  const volatile = new Set(['id', 'created_at', 'updated_at', 'estimated_completion']);
  const rows = [];
  for (const created of creates) {
    const { rows: events } = await db.query("SELECT * FROM events WHERE data->>'session_id' = $1", [
      created.json.session_id,
    ]);
    if (events.length !== 1)
      fail(`${created.json.session_id}: expected 1 outbox row, found ${events.length}`);
    const event = events[0];
    if (event.request_id !== created.headers.get('x-request-id'))
      fail('outbox row request_id is not the response X-Request-Id');
    const { rows: sessions } = await db.query('SELECT * FROM sessions WHERE id = $1', [
      uuidOf(created.json.session_id),
    ]);
    if (sessions.length !== 1) fail(`${created.json.session_id}: session row not found`);
    const strip = (row, extra = []) =>
      Object.fromEntries(
        Object.entries(row).filter(([key]) => !volatile.has(key) && !extra.includes(key)),
      );
    const data = { ...event.data };
    for (const key of ['session_id', 'created_at', 'estimated_completion'])
      data[key] = typeof data[key];
    rows.push({
      session: strip(sessions[0]),
      event: { ...strip(event, ['request_id', 'data']), data },
    });
  }
  if (!isDeepStrictEqual(rows[0], rows[1]))
    fail(
      `rows differ:\n  service   ${JSON.stringify(rows[0])}\n  reference ${JSON.stringify(rows[1])}`,
    );

  if (CONFIG.analyses.enabled) await submitParity({ apiBase, refBase, writeHeaders, db, fail });
  if (CONFIG.dowsing.enabled) await dowsingParity({ apiBase, refBase, writeHeaders, db, request });
}

/**
 * POST /v1/analysis/targets on both servers: 201 with the same body shape, equivalent `analyses`
 * and `events` rows (ids and times aside; the same request fingerprint, estimate and outbox data),
 * and the outbox row's request_id = the response's X-Request-Id.
 */
async function submitParity({ apiBase, refBase, writeHeaders, db, fail }) {
  const submits = await Promise.all(
    [apiBase, refBase].map((base) =>
      request(base, 'POST', '/v1/analysis/targets', { headers: writeHeaders, body: SUBMIT_BODY }),
    ),
  );
  for (const [i, submitted] of submits.entries()) {
    if (submitted.status !== 201)
      fail(
        `${i ? 'reference' : 'service'} submit: HTTP ${submitted.status} ${submitted.text.slice(0, 300)}`,
      );
  }
  const shape = (body) =>
    Object.entries(body).map(([key, value]) => [
      key,
      key === 'status' || key === 'priority' ? value : typeof value,
    ]);
  if (!isDeepStrictEqual(shape(submits[0].json), shape(submits[1].json)))
    fail(
      `submit bodies differ in shape:\n  service   ${submits[0].text}\n  reference ${submits[1].text}`,
    );
  const volatile = new Set(['id', 'created_at', 'updated_at', 'estimated_completion']);
  const strip = (row, extra = []) =>
    Object.fromEntries(
      Object.entries(row).filter(([key]) => !volatile.has(key) && !extra.includes(key)),
    );
  const rows = [];
  const estimates = [];
  for (const submitted of submits) {
    const publicId = submitted.json.analysis_id;
    const { rows: events } = await db.query(
      "SELECT * FROM events WHERE type = 'analysis.created' AND data->>'analysis_id' = $1",
      [publicId],
    );
    if (events.length !== 1) fail(`${publicId}: expected 1 outbox row, found ${events.length}`);
    const event = events[0];
    if (event.request_id !== submitted.headers.get('x-request-id'))
      fail('submit: outbox row request_id is not the response X-Request-Id');
    const { rows: analyses } = await db.query('SELECT * FROM analyses WHERE id = $1', [
      TypeIDClass.fromString(publicId, 'anal').toUUID(),
    ]);
    if (analyses.length !== 1) fail(`${publicId}: analysis row not found`);
    const analysis = analyses[0];
    if (analysis.estimated_completion.toISOString() !== submitted.json.estimated_completion)
      fail(`${publicId}: estimated_completion of the row and of the answer differ`);
    estimates.push(analysis.estimated_completion - analysis.created_at);
    const data = { ...event.data };
    for (const key of ['analysis_id', 'created_at', 'estimated_completion'])
      data[key] = typeof data[key];
    rows.push({
      analysis: strip(analysis),
      event: { ...strip(event, ['request_id', 'data']), data },
    });
  }
  if (!isDeepStrictEqual(rows[0], rows[1]))
    fail(
      `analysis rows differ:\n  service   ${JSON.stringify(rows[0])}\n  reference ${JSON.stringify(rows[1])}`,
    );
  // The same estimate from the same queue: the row's estimated_completion − created_at (both
  // servers take their clock a few ms apart, before and after the estimate's queries).
  if (Math.abs(estimates[0] - estimates[1]) > 250)
    fail(
      `estimates differ: estimated_completion − created_at is ${estimates[0]} ms on the service, ${estimates[1]} ms on the reference`,
    );
}

/** sess_… → UUID, with the same library the service uses. */
let TypeIDClass;
function uuidOf(publicId) {
  return TypeIDClass.fromString(publicId, 'sess').toUUID();
}
/** org_… → UUID. */
function uuidOfOrganization(publicId) {
  return TypeIDClass.fromString(publicId, 'org').toUUID();
}

// ------------------------------------------------------------------ analyses (bench/analyses.mjs)

/** What bench/analyses.mjs needs of this file's machinery, bound to the run's context. */
function analysesTools(ctx) {
  return {
    log,
    sleep,
    describe: (error) => describeError(error, { oneLine: true }),
    quietMachine,
    quietOutbox: () => quietOutbox(ctx.db, uuidOfOrganization(ctx.organizationId)),
    /**
     * Ends the bench organisation's unfinished work created before `since` (as the completer
     * does), so a worker runs only its phase's own: requests still in flight when an earlier
     * phase's load stopped commit after the completer's last pass, and the seed session waits
     * for a worker too.
     */
    async endLeftovers(since) {
      const organization = uuidOfOrganization(ctx.organizationId);
      await ctx.db.query(
        `UPDATE analyses SET status = 'failed', failure_reason = 'cancelled',
                failure_message = 'The analysis was cancelled', completed_at = now(), updated_at = now()
          WHERE organization_id = $1 AND mode = 'live' AND status IN ('queued', 'processing')
            AND created_at < $2`,
        [organization, since],
      );
      await ctx.db.query(
        `UPDATE sessions SET status = 'failed', failure_reason = 'cancelled',
                completed_at = now(), updated_at = now()
          WHERE organization_id = $1 AND mode = 'live' AND status IN ('initiated', 'in_progress')
            AND created_at < $2`,
        [organization, since],
      );
    },
    clearQueues,
    organizationUuid: uuidOfOrganization(ctx.organizationId),
    publicIdOf: (prefix, uuid) => TypeIDClass.fromUUID(prefix, uuid).toString(),
    apiPid: () => ctx.api.pid,
    running,
    logTail,
    stopChild,
    cpuSnapshot,
    cpuBetween,
    paced,
    RawClient,
    latencySummary,
    bodies: { session: CREATE_BODY, analysis: SUBMIT_BODY },
    connections: CONFIG.connections,
    wait: WAIT,
    // Left as the environment has it (the worker's default unless set): reported, not chosen.
    workerConcurrency: env.WORKER_CONCURRENCY ? Number(env.WORKER_CONCURRENCY) : 50,
    /**
     * One worker (SIMULATED_STEP_MS=0: the steps' paced time gone, their work left), logging to
     * bench/results/<name>.log; resolves once its health server says ready, with the start-up time.
     */
    async startWorker(name) {
      const port = await freePort();
      const started = performance.now();
      const child = startChild(name, ['dist/apps/worker/src/main.js'], {
        ...ctx.shared,
        LOG_LEVEL: CONFIG.logLevel,
        SIMULATED_STEP_MS: '0',
        SHUTDOWN_GRACE_MS: '3000',
        WORKER_HEALTH_PORT: String(port),
      });
      try {
        await waitFor(`http://127.0.0.1:${port}/health/ready`, child, WAIT.startMs);
      } catch (error) {
        await stopChild(child);
        throw error;
      }
      return { child, startupS: (performance.now() - started) / 1000 };
    },
  };
}

// ------------------------------------------------------------------ webhook delivery

/** CPU time of some processes, of the machine and of this process, at one moment (see cpuBetween). */
function cpuSnapshot(pids) {
  return {
    at: performance.now(),
    cpu: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)])),
    machine: machineSnapshot(),
    bench: process.cpuUsage(),
  };
}

/** CPU ms of each process between two snapshots, and the machine's CPU split in % of one core. */
function cpuBetween(a, b) {
  const wallMs = b.at - a.at;
  const cpu = {};
  for (const name of Object.keys(a.cpu))
    cpu[name] = a.cpu[name] === null || b.cpu[name] === null ? null : b.cpu[name] - a.cpu[name];
  const generatorMs = (b.bench.user - a.bench.user + b.bench.system - a.bench.system) / 1000;
  let machine = null;
  if (a.machine && b.machine && wallMs > 0) {
    const pct = (ms) => (ms === null ? null : Math.round((100 * ms) / wallMs)); // % of one core
    let databasesMs = 0; // processes that started during the window count in full
    for (const [pid, ms] of b.machine.databases)
      databasesMs += ms - (a.machine.databases.get(pid) ?? 0);
    const busyMs = b.machine.busyMs - a.machine.busyMs;
    const processesMs = Object.values(cpu).reduce((sum, ms) => sum + (ms ?? 0), 0);
    machine = {
      busyPct: pct(busyMs),
      ...Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [`${name}Pct`, pct(ms)])),
      databasesPct: pct(databasesMs),
      generatorPct: pct(generatorMs),
      otherPct: Math.max(0, pct(busyMs - processesMs - databasesMs - generatorMs)),
      stealPct: pct(b.machine.stealMs - a.machine.stealMs),
    };
  }
  return { wallMs, cpuMs: cpu, generatorCpuMs: generatorMs, machine };
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** bench/webhook-receiver.mjs as a child process, driven over IPC. */
async function startReceiver(certs) {
  const child = startChild(
    'webhook-receiver',
    ['bench/webhook-receiver.mjs'],
    { BENCH_RECEIVER_CERT: certs.certPem, BENCH_RECEIVER_KEY: certs.keyPem },
    { ipc: true },
  );
  const listeners = new Set();
  child.on('message', (message) => {
    for (const listener of listeners) listener(message);
  });
  /** The next message matching `match` (registered now, so nothing sent later is missed). */
  const next = (match) => {
    let listener;
    const answer = new Promise((resolve, reject) => {
      listener = (message) => {
        if (!match(message)) return;
        listeners.delete(listener);
        resolve(message);
      };
      listeners.add(listener);
      child.exited.then(({ code, signal }) =>
        reject(new Error(`webhook receiver exited (${signal ?? code}):\n${logTail(child)}`)),
      );
    });
    answer.catch(() => undefined); // a rejection nobody awaits is not fatal
    return answer;
  };
  const { ready: port } = await withTimeout(
    next((m) => m?.ready),
    WAIT.startMs,
    'webhook receiver start-up',
  );
  let waitId = 0;
  return {
    child,
    base: `https://127.0.0.1:${port}`,
    /** Forgets what arrived; resolves with `{first}`, a promise of the next arrival (epoch ms). */
    async reset() {
      const ack = next((m) => m?.reset);
      child.send({ cmd: 'reset' });
      await withTimeout(ack, 30_000, 'webhook receiver reset');
      const first = next((m) => m?.first !== undefined).then((m) => m.first);
      first.catch(() => undefined);
      return { first }; // not the promise itself: an async function would wait for it
    },
    /**
     * What arrived since the reset, once `count` requests did — or once none arrived for
     * WAIT.idleMs (the pipeline stalled), at the latest after WAIT.maxMs.
     */
    async wait(count) {
      const id = ++waitId;
      const answer = next((m) => m?.id === id);
      child.send({ cmd: 'wait', id, count, idleMs: WAIT.idleMs, maxMs: WAIT.maxMs });
      return (await withTimeout(answer, WAIT.maxMs + 30_000, 'webhook receiver')).result;
    },
  };
}

/**
 * Before a phase starts the worker: no worker ran during the HTTP phases, so their events are
 * still in the outbox — mark them relayed, or the worker would now start every one of their
 * sessions and analyses — and empty the job queues. Returns how many events it marked.
 */
async function quietOutbox(db, organizationId) {
  const { rowCount: skipped } = await db.query(
    'UPDATE events SET relayed_at = now() WHERE relayed_at IS NULL AND organization_id = $1',
    [organizationId],
  );
  // Without this the relay's scan of the unrelayed-events index would wade through every row
  // just updated (dead index entries until autovacuum gets there), slowing the relay down.
  await db.query('VACUUM (ANALYZE) events');
  const {
    rows: [{ count: foreign }],
  } = await db.query('SELECT count(*)::int AS count FROM events WHERE relayed_at IS NULL');
  if (foreign > 0)
    log(`  note: ${foreign} unrelayed events of other organisations; the worker relays them too`);
  await clearQueues();
  return skipped;
}

/** Deletes the bench's BullMQ queues (sessions, analyses, events) so no job outlives the phase. */
async function clearQueues() {
  const redis = new Redis(CONFIG.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    for (const queue of ['events', 'sessions', 'analyses']) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(
          cursor,
          'MATCH',
          `${CONFIG.redisPrefix}:${queue}:*`,
          'COUNT',
          1000,
        );
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

const hmac = (key, text, encoding) => createHmac('sha256', key).update(text).digest(encoding);
const standardKey = (secret) =>
  secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');

/** Both signatures of a received delivery checked against the endpoint's secret: null when genuine. */
function signatureProblem(secret, sample) {
  if (!sample) return 'no delivery arrived';
  const { headers, rawBody } = sample;
  const service = `sha256=${hmac(Buffer.from(secret, 'utf8'), rawBody, 'hex')}`;
  if (
    !String(headers['x-service-signature'] ?? '')
      .split(',')
      .includes(service)
  )
    return 'X-Service-Signature does not match';
  const id = headers['webhook-id'];
  const standard = `v1,${hmac(standardKey(secret), `${id}.${headers['webhook-timestamp']}.${rawBody}`, 'base64')}`;
  if (
    !String(headers['webhook-signature'] ?? '')
      .split(' ')
      .includes(standard)
  )
    return 'webhook-signature does not match';
  if (JSON.parse(rawBody).id !== id) return 'webhook-id is not the envelope id';
  return null;
}

/**
 * The same receiver hit directly: signed POSTs of an envelope like the worker's (fresh id and
 * created_at each, both signatures computed per request), over one undici Agent trusting the same
 * CA, `concurrency` requests in flight, as the worker's sender does.
 */
async function directPosts({ url, caPem, secret, template, durationMs, concurrency }) {
  const agent = new UndiciAgent({
    connect: { ca: [...rootCertificates, caPem], rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    connections: concurrency, // one socket per request in flight, as the worker ends up with
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
  });
  const serviceKey = Buffer.from(secret, 'utf8');
  const key = standardKey(secret);
  const deadline = performance.now() + durationMs;
  let ok = 0;
  let failed = 0;
  let firstError = null;
  const loop = async () => {
    while (performance.now() < deadline) {
      const id = `evt_${randomBytes(16).toString('hex').slice(0, 26)}`;
      const body = JSON.stringify({ ...template, id, created_at: new Date().toISOString() });
      const timestamp = Math.floor(Date.now() / 1000);
      try {
        const response = await undiciRequest(url, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'SessionAnalysisService-Webhooks/1.0',
            'x-service-signature': `sha256=${hmac(serviceKey, body, 'hex')}`,
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': `v1,${hmac(key, `${id}.${timestamp}.${body}`, 'base64')}`,
            'x-service-delivery-id': `whdel_${randomBytes(16).toString('hex').slice(0, 26)}`,
            'x-service-delivery-attempt': '1',
          },
          body,
          signal: AbortSignal.timeout(5_000),
        });
        await response.body.text();
        if (response.statusCode === 200) ok += 1;
        else {
          failed += 1;
          firstError ??= new Error(`HTTP ${response.statusCode}`);
        }
      } catch (error) {
        failed += 1;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  await agent.close();
  return { ok, failed, firstError };
}

const ms = (value) => (value === null || value === undefined ? null : round2(value));
function latencySummary(values) {
  const sorted = Float64Array.from(values.filter(Number.isFinite)).sort();
  return {
    p50: ms(percentile(sorted, 50)),
    p95: ms(percentile(sorted, 95)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted.length ? sorted[sorted.length - 1] : null),
  };
}
const DIRECT_S = 5; // length of the direct-POST run
/**
 * How the webhook phase waits: for a process to start (the worker, the receiver) up to startMs;
 * for deliveries as long as they keep coming — giving up once none arrived (or none changed state)
 * for idleMs — and at most maxMs in all. A slow machine makes the phase slower, not failed.
 */
const WAIT = { startMs: 120_000, idleMs: 30_000, maxMs: 15 * 60_000 };

const perSecond = (received) =>
  received.count > 1 && received.lastAt > received.firstAt
    ? Number((((received.count - 1) * 1000) / (received.lastAt - received.firstAt)).toFixed(1))
    : null;

/**
 * Webhook delivery through the worker to a local HTTPS receiver:
 *  1. throughput — sessions created while no worker runs leave their session.created events in the
 *     outbox; the worker then relays them, fans each out to every endpoint and delivers: deliveries/s
 *     from the first to the last delivery received, and the worker's CPU per delivery;
 *  2. direct — 5 s of signed POSTs sent straight to the receiver by an undici client at the
 *     worker's concurrency: how close the pipeline gets to raw HTTPS;
 *  3. latency — sessions created at a paced rate while the worker runs: receivedAt − the envelope's
 *     created_at (clock_timestamp() of the event's insert, in its transaction) per delivery.
 * Each part's figures go into `result` (the phase's partial) as soon as they are measured. Waits
 * end on a condition, or when nothing has progressed for WAIT.idleMs (never on a fixed deadline
 * that a loaded machine could miss). Throws at the end when anything went wrong (`problems`).
 */
async function webhookPhase(ctx, result) {
  const { api, shared, writeHeaders, db } = ctx;
  const W = CONFIG.webhooks;
  const phaseStarted = performance.now();
  const problems = [];
  const concurrency = Math.min(W.workerConcurrency, W.endpoints * W.endpointConcurrency);
  result.settings = {
    endpoints: W.endpoints,
    events: ['session.created'],
    endpointConcurrency: W.endpointConcurrency,
    workerConcurrency: W.workerConcurrency,
    workers: W.workers,
    concurrency,
    backlogSessions: W.backlogSessions,
    pacedSessionsPerS: W.pacedRate,
    pacedDurationS: W.pacedDuration,
    workerEnv: { WORKER_CONCURRENCY: 1, SIMULATED_STEP_MS: 600000 },
  };
  result.problems = problems;
  await api.ensure('webhooks');
  const apiBase = api.base;

  const certs = await createCertificates();
  const caFile = join(RESULTS, 'webhook-ca.pem');
  writeFileSync(caFile, certs.caPem);
  const receiver = await startReceiver(certs);
  log(`Webhook receiver on ${receiver.base} (certificate from a throwaway CA: ${caFile}).`);

  const organizationId = uuidOfOrganization(ctx.organizationId);
  const skipped = await quietOutbox(db, organizationId);
  log(`Marked the HTTP phases' ${skipped} outbox rows relayed; emptied the bench's job queues.`);

  const webhooks = [];
  // Several workers share each endpoint's WEBHOOK_ENDPOINT_CONCURRENCY through their leases, so
  // at most `concurrency` deliveries are in flight however many run; the first one is profiled.
  let workers = [];
  const countUnrelayed = async () =>
    (
      await db.query(
        `SELECT count(*)::int AS count FROM events
          WHERE relayed_at IS NULL AND organization_id = $1 AND type = 'session.created'`,
        [organizationId],
      )
    ).rows[0].count;
  /**
   * Waits until every delivery is recorded (state no longer pending), so the worker's CPU covers
   * all its work; gives up only when the pending count has not moved for WAIT.idleMs. Returns how
   * many are still pending.
   */
  const settled = async (ids) => {
    let last = null;
    let changed = Date.now();
    for (;;) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS count FROM webhook_deliveries
          WHERE webhook_id = ANY($1::uuid[]) AND state = 'pending'`,
        [ids],
      );
      const pending = rows[0].count;
      if (pending === 0) return 0;
      if (pending !== last) [last, changed] = [pending, Date.now()];
      else if (Date.now() - changed > WAIT.idleMs) return pending;
      await sleep(50);
    }
  };
  const workerGone = () => {
    const gone = workers.find((worker) => !running(worker));
    return gone
      ? `${gone.benchName} exited (${gone.signalCode ?? `exit ${gone.exitCode}`}):\n${logTail(gone)}`
      : null;
  };
  /** A cpuBetween window with the workers' CPU added up under `worker` (pids worker, worker-2, …). */
  const workersTogether = (window) => {
    const names = workers.map((w) => w.benchName);
    const sum = (values) =>
      values.some((v) => v === null || v === undefined) ? null : values.reduce((a, b) => a + b, 0);
    window.cpuMs.worker = sum(names.map((name) => window.cpuMs[name]));
    if (window.machine)
      window.machine.workerPct = sum(names.map((name) => window.machine[`${name}Pct`]));
    for (const name of names.slice(1)) {
      delete window.cpuMs[name];
      if (window.machine) delete window.machine[`${name}Pct`];
    }
    return window;
  };
  const workerPids = () => Object.fromEntries(workers.map((w) => [w.benchName, w.pid]));
  try {
    for (let i = 1; i <= W.endpoints; i++) {
      const created = await request(apiBase, 'POST', '/v1/webhooks', {
        headers: writeHeaders,
        body: JSON.stringify({ url: `${receiver.base}/hooks/${i}`, events: ['session.created'] }),
      });
      if (created.status !== 201 || !created.json?.secret)
        throw new Error(
          `registering webhook ${i}: HTTP ${created.status} ${created.text.slice(0, 300)}`,
        );
      webhooks.push({
        id: created.json.webhook_id,
        uuid: TypeIDClass.fromString(created.json.webhook_id, 'wh').toUUID(),
        secret: created.json.secret,
        path: `/hooks/${i}`,
      });
    }
    const ids = webhooks.map((w) => w.uuid);

    // 1. throughput: drain a backlog.
    await quietMachine();
    log(
      `webhook throughput: ${W.backlogSessions} sessions created, then the worker starts and delivers each to ${W.endpoints} endpoints …`,
    );
    const backlog = await autocannon({
      url: `${apiBase}/v1/sessions`,
      method: 'POST',
      headers: writeHeaders,
      body: CREATE_BODY,
      connections: Math.min(CONFIG.connections, W.backlogSessions),
      amount: W.backlogSessions,
      timeout: 10,
    });
    if (backlog['2xx'] !== W.backlogSessions)
      problems.push(
        `${W.backlogSessions - backlog['2xx']} of ${W.backlogSessions} backlog session creates failed (${backlog.non2xx} non-2xx, ${backlog.errors} errors, ${backlog.timeouts} timeouts; codes ${JSON.stringify(backlog.statusCodeStats)})`,
      );
    const backlogEvents = await countUnrelayed();
    const expected = backlogEvents * W.endpoints;
    if (backlogEvents === 0) throw new Error(`no backlog: ${problems.join('; ')}`);
    log(
      `  ${backlogEvents} session.created events in the outbox; starting ${W.workers === 1 ? 'the worker' : `${W.workers} workers`} …`,
    );
    const { first: firstArrival } = await receiver.reset();
    const workerArgs = W.profile ? ['--import', './bench/cpu-profile-hook.mjs'] : [];
    workers = Array.from({ length: W.workers }, (_, i) =>
      startChild(
        i === 0 ? 'worker' : `worker-${i + 1}`,
        [...(i === 0 ? workerArgs : []), 'dist/apps/worker/src/main.js'],
        {
          ...shared,
          LOG_LEVEL: CONFIG.logLevel,
          // Sessions would run in this worker too: one at a time, each step 10 min, so its CPU is the
          // event pipeline's (relay, fan-out, dispatch, delivery) and not the simulated sessions'.
          WORKER_CONCURRENCY: '1',
          SIMULATED_STEP_MS: '600000',
          SHUTDOWN_GRACE_MS: '3000',
          WEBHOOK_EXTRA_CA_FILE: caFile,
          WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
        },
        { ipc: W.profile && i === 0 },
      ),
    );
    const [worker] = workers;
    const workerDied = Promise.race(workers.map((w) => w.exited)).then(() => {
      throw new Error(workerGone());
    });
    workerDied.catch(() => undefined);
    // The worker's start-up (a Nest application) takes seconds, more on a loaded machine.
    await withTimeout(
      Promise.race([firstArrival, workerDied]),
      WAIT.startMs,
      'first webhook delivery',
    );
    if (W.profile) await profileWorker(worker, 'start');
    const pids = { ...workerPids(), receiver: receiver.child.pid };
    const drainStart = cpuSnapshot(pids);
    const drained = await Promise.race([receiver.wait(expected), workerDied]);
    const pendingAfterDrain = await settled(ids);
    if (W.profile) await profileWorker(worker, 'stop', 'drain', drained.count);
    const drain = workersTogether(cpuBetween(drainStart, cpuSnapshot(pids)));
    if (drained.count < expected)
      problems.push(
        `throughput: ${drained.count} of ${expected} deliveries arrived (none for ${WAIT.idleMs / 1000} s after the last)`,
      );
    if (pendingAfterDrain > 0)
      problems.push(`throughput: ${pendingAfterDrain} deliveries still pending`);
    for (const w of webhooks) {
      const problem = signatureProblem(w.secret, drained.samples[w.path]);
      if (problem) problems.push(`${w.path}: ${problem}`);
    }
    const pipelineRate = perSecond(drained);
    const perDelivery = (cpuMsValue, count) =>
      cpuMsValue === null || !count ? null : Number((cpuMsValue / count).toFixed(3));
    result.throughput = {
      sessions: backlogEvents,
      deliveries: drained.count,
      spanS: round2((drained.lastAt - drained.firstAt) / 1000),
      deliveriesPerS: pipelineRate,
      workerCpuMs: drain.cpuMs.worker,
      workerCpuMsPerDelivery: perDelivery(drain.cpuMs.worker, drained.count),
      workerPercentOfOneCore: drain.machine?.workerPct ?? null,
      receiverConnections: drained.connections,
      machine: drain.machine,
    };

    // 2. the same receiver, hit directly.
    await quietMachine();
    log(`direct signed HTTPS POSTs to the receiver: ${DIRECT_S} s at concurrency ${concurrency} …`);
    const template = JSON.parse(drained.samples[webhooks[0].path]?.rawBody ?? '{}');
    await receiver.reset();
    const directPids = { receiver: receiver.child.pid };
    const directStart = cpuSnapshot(directPids);
    const direct = await directPosts({
      url: `${receiver.base}/direct`,
      caPem: certs.caPem,
      secret: webhooks[0].secret,
      template,
      durationMs: DIRECT_S * 1000,
      concurrency,
    });
    const directReceived = await receiver.wait(direct.ok);
    const directCpu = cpuBetween(directStart, cpuSnapshot(directPids));
    if (direct.failed > 0)
      problems.push(
        `direct: ${direct.failed} POSTs failed${direct.firstError ? ` (first: ${describeError(direct.firstError, { oneLine: true })})` : ''}`,
      );
    const directRate = perSecond(directReceived);
    result.direct = {
      requests: directReceived.count,
      failed: direct.failed,
      spanS: round2((directReceived.lastAt - directReceived.firstAt) / 1000),
      requestsPerS: directRate,
      clientCpuMsPerRequest: perDelivery(directCpu.generatorCpuMs, directReceived.count),
      receiverConnections: directReceived.connections,
      machine: directCpu.machine,
    };
    // Delivery pipeline ÷ raw HTTPS to the same receiver at the same concurrency.
    result.throughputRatio =
      pipelineRate && directRate ? Number((pipelineRate / directRate).toFixed(3)) : null;

    // 3. latency under a paced load (on a restarted API if the backlog broke it).
    if (workerGone()) throw new Error(workerGone());
    await api.ensure('webhook latency');
    await quietMachine();
    log(
      `webhook latency: ${W.pacedRate} sessions/s for ${W.pacedDuration} s (${W.pacedRate * W.endpoints} deliveries/s) …`,
    );
    await receiver.reset();
    const latencyPids = { ...workerPids(), api: api.pid, receiver: receiver.child.pid };
    const client = new RawClient(apiBase, 10);
    const pacedFrom = new Date();
    if (W.profile) await profileWorker(worker, 'start');
    const latencyStart = cpuSnapshot(latencyPids);
    const creates = await paced(
      {
        base: apiBase,
        method: 'POST',
        path: '/v1/sessions',
        headers: writeHeaders,
        body: CREATE_BODY,
      },
      { rate: W.pacedRate, duration: W.pacedDuration, client },
    );
    client.destroy();
    const latencyExpected = creates.ok * W.endpoints;
    const arrived = await Promise.race([receiver.wait(latencyExpected), workerDied]);
    const pendingAfterLatency = await settled(ids);
    if (W.profile) await profileWorker(worker, 'stop', 'latency', arrived.count);
    const latencyCpu = workersTogether(cpuBetween(latencyStart, cpuSnapshot(latencyPids)));
    if (creates.ok < W.pacedRate * W.pacedDuration)
      problems.push(
        `latency: ${W.pacedRate * W.pacedDuration - creates.ok} of ${W.pacedRate * W.pacedDuration} session creates failed (${creates.failures.non2xx} non-2xx, ${creates.failures.errors} errors; codes ${JSON.stringify(creates.failures.statusCodes)})`,
      );
    if (arrived.count < latencyExpected)
      problems.push(`latency: ${arrived.count} of ${latencyExpected} deliveries arrived`);
    if (pendingAfterLatency > 0)
      problems.push(`latency: ${pendingAfterLatency} deliveries still pending`);
    // Where the time goes, from the rows: relay pass began (events.relayed_at is its now()),
    // attempt started (claimed, webhook and event loaded, just before signing), and the attempt's
    // own duration as the sender timed it (request out to the answer read).
    const { rows: stages } = await db.query(
      `SELECT extract(epoch FROM e.relayed_at - e.created_at) * 1000 AS relay,
              extract(epoch FROM a.started_at - e.created_at) * 1000 AS started,
              a.duration_ms AS duration
         FROM webhook_deliveries d
         JOIN events e ON e.id = d.event_id
         JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt_number = 1
        WHERE d.webhook_id = ANY($1::uuid[]) AND e.created_at >= $2`,
      [ids, pacedFrom],
    );
    const stage = (key) => {
      const { p50, p99 } = latencySummary(stages.map((row) => Number(row[key])));
      return { p50, p99 };
    };
    result.latency = {
      sessionsCreated: creates.ok,
      createLatencyMs: latencySummary(creates.latencies),
      deliveries: arrived.count,
      deliveriesPerS: perSecond(arrived),
      stateChangeToDeliveryMs: latencySummary(arrived.latencies),
      stagesMs: {
        createdToRelayPass: stage('relay'),
        createdToAttemptStart: stage('started'),
        attemptDuration: stage('duration'),
      },
      workerCpuMsPerDelivery: perDelivery(latencyCpu.cpuMs.worker, arrived.count),
      machine: latencyCpu.machine,
    };

    const { rows: states } = await db.query(
      `SELECT state, count(*)::int AS count FROM webhook_deliveries
        WHERE webhook_id = ANY($1::uuid[]) GROUP BY state ORDER BY state`,
      [ids],
    );
    result.deliveryStates = Object.fromEntries(states.map((r) => [r.state, r.count]));
    if (Object.keys(result.deliveryStates).some((state) => state !== 'succeeded'))
      problems.push(`deliveries not all succeeded: ${JSON.stringify(result.deliveryStates)}`);
    result.duplicates = drained.duplicates + arrived.duplicates;
    if (result.duplicates > 0) problems.push(`${result.duplicates} deliveries arrived twice`);
    const apiProblem = await api.problem();
    if (apiProblem) problems.push(`after this phase, ${apiProblem}`);
    if (problems.length > 0)
      throw new Error(
        `webhook phase: ${problems.join('; ')} — see bench/results/worker.log and api.log`,
      );
    return result;
  } finally {
    await Promise.all(workers.map((worker) => stopChild(worker)));
    await deleteWebhooks(apiBase, writeHeaders, webhooks, db);
    await stopChild(receiver.child);
    await clearQueues().catch((error) =>
      log(`  could not empty the job queues: ${describeError(error, { oneLine: true })}`),
    );
    log(`Webhook phase done in ${((performance.now() - phaseStarted) / 1000).toFixed(1)} s.`);
  }
}

/**
 * BENCH_WEBHOOK_PROFILE=1: the worker runs with bench/cpu-profile-hook.mjs; its profile of one
 * window goes to bench/results/profiles/worker-webhooks-<window>.cpuprofile, with the sidecar
 * profile-summary.mjs reads per-delivery costs from.
 */
async function profileWorker(worker, action, window, deliveries) {
  const file = join(RESULTS, 'profiles', `worker-webhooks-${window}.cpuprofile`);
  if (action === 'stop') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file.replace(/\.cpuprofile$/, '.json'),
      `${JSON.stringify({ server: 'worker', phase: `webhooks-${window}`, requests: deliveries })}\n`,
    );
  }
  const answered = new Promise((resolve) => {
    const onMessage = (message) => {
      if (message?.profileStarted || message?.profileWritten) {
        worker.off('message', onMessage);
        resolve();
      }
    };
    worker.on('message', onMessage);
  });
  worker.send(action === 'start' ? { profile: 'start' } : { profile: 'stop', file });
  await Promise.race([answered, sleep(15_000)]);
  if (action === 'stop') log(`  worker CPU profile: ${file}`);
}

/** The phase's webhooks removed through the API; through SQL when the API does not answer. */
async function deleteWebhooks(apiBase, writeHeaders, webhooks, db) {
  const viaSql = [];
  let answering = true;
  for (const w of webhooks) {
    if (answering) {
      try {
        const deleted = await request(apiBase, 'DELETE', `/v1/webhooks/${w.id}`, {
          headers: { authorization: writeHeaders.authorization },
          timeoutMs: 10_000,
        });
        if (deleted.status === 204 || deleted.status === 404) continue;
      } catch {
        answering = false; // the rest go through SQL at once
      }
    }
    viaSql.push(w);
  }
  if (viaSql.length === 0) return;
  try {
    await db.query('DELETE FROM webhooks WHERE id = ANY($1::uuid[])', [viaSql.map((w) => w.uuid)]);
    log(`  deleted ${viaSql.length} webhooks in the database (the API did not).`);
  } catch (error) {
    log(`  could not delete the phase's webhooks: ${describeError(error, { oneLine: true })}`);
  }
}

// ------------------------------------------------------------------ report

const LABELS = {
  read: 'GET  /v1/sessions/{id}',
  'read-api-key': 'GET  /v1/sessions/{id} with an API key',
  'read-unlimited': 'GET  /v1/sessions/{id}, RATE_LIMITS=off',
  create: 'POST /v1/sessions',
  submit: 'POST /v1/analysis/targets (quick_scan)',
  'dowsing-query': 'POST /v1/dowsing/query (location)',
  'fixed-paced': 'GET  {id} @ 1,000/s, paced (open loop)',
  'fixed-autocannon': 'GET  {id} @ 1,000/s, autocannon overallRate',
};

/** One row of the table from the runs of one phase on one server (merged over rounds). */
function summarizeRuns(runs) {
  const { phase, server } = runs[0];
  const failures = runs.reduce(
    (sum, r) => ({
      non2xx: sum.non2xx + r.failures.non2xx,
      errors: sum.errors + r.failures.errors,
      timeouts: sum.timeouts + (r.failures.timeouts ?? 0),
      statusCodes: mergeCodes(sum.statusCodes, r.failures.statusCodes),
    }),
    { non2xx: 0, errors: 0, timeouts: 0, statusCodes: {} },
  );
  const summary = summarize(
    {
      phase,
      label: LABELS[phase],
      server,
      rounds: runs.length,
      offeredRps: phase.startsWith('fixed') ? CONFIG.fixedRate : null,
    },
    runs.flatMap((r) => r.latencies),
    runs.reduce((n, r) => n + r.ok, 0),
    failures,
    runs.reduce((s, r) => s + r.durationS, 0),
  );
  delete summary.rawLatencies;
  const cpu = runs.every((r) => r.serverCpuMs !== null && r.serverCpuMs !== undefined)
    ? runs.reduce((sum, r) => sum + r.serverCpuMs, 0)
    : null;
  const answered = runs.reduce((n, r) => n + r.ok + r.failures.non2xx, 0);
  const machines = runs.map((r) => r.machine).filter(Boolean);
  if (machines.length > 0) {
    const mean = (key) =>
      Math.round(machines.reduce((sum, m) => sum + m[key], 0) / machines.length);
    summary.machine = Object.fromEntries(Object.keys(machines[0]).map((key) => [key, mean(key)]));
  }
  summary.serverCpu =
    cpu === null
      ? null
      : {
          percentOfOneCore: Number(((100 * cpu) / 1000 / summary.durationS).toFixed(0)),
          usPerRequest: answered ? Number(((cpu * 1000) / answered).toFixed(0)) : null,
        };
  if (runs.every((r) => r.fullGcs)) summary.fullGcs = fullGcSummary(runs.flatMap((r) => r.fullGcs));
  if (runs.length > 1)
    summary.perRound = runs.map((r) => ({
      round: r.round,
      rps: Number((r.ok / r.durationS).toFixed(1)),
      ...(r.fullGcs ? { fullGcs: r.fullGcs.length } : {}),
    }));
  return summary;
}

/** One HTTP phase's row, as printed when it ends and saved in its file. */
const rowOf = (entry) => ({
  ...summarizeRuns([entry]),
  ...(CONFIG.rounds > 1 ? { round: entry.round } : {}),
});

/**
 * The report of the HTTP phases: one row per phase and server, merged over the rounds that
 * succeeded; a failed phase's measurement gets a row of its own (marked failed) and counts in no
 * ratio or target. A ratio or target whose phases are missing is null ("not measured").
 */
function buildReport(raw, extra) {
  const phases = [];
  for (const phase of [
    'read',
    'read-unlimited',
    'read-api-key',
    'create',
    'submit',
    'dowsing-query',
    'fixed-paced',
    'fixed-autocannon',
  ]) {
    for (const server of ['service', 'reference']) {
      const runs = raw.filter(
        (r) => r.phase === phase && r.server === server && r.ok !== undefined,
      );
      const good = runs.filter((r) => !r.failed);
      if (good.length > 0) phases.push(summarizeRuns(good));
      for (const bad of runs.filter((r) => r.failed))
        phases.push({ ...rowOf(bad), round: bad.round, failed: true });
    }
  }
  const counted = phases.filter((p) => !p.failed);
  const find = (phase, server) => counted.find((p) => p.phase === phase && p.server === server);
  const ratio = (phase) => {
    const [service, reference] = [find(phase, 'service'), find(phase, 'reference')];
    return service && reference && reference.rps > 0
      ? Number((service.rps / reference.rps).toFixed(3))
      : null;
  };
  const cpuRatio = (phase) => {
    const service = find(phase, 'service')?.serverCpu?.usPerRequest;
    const reference = find(phase, 'reference')?.serverCpu?.usPerRequest;
    return service && reference ? Number((reference / service).toFixed(3)) : null;
  };
  const fixed = find('fixed-paced', 'service');
  const fixedSustained = fixed ? fixed.rps >= 0.97 * CONFIG.fixedRate : false;
  const notMeasured = 'not measured: its phases failed or did not run';
  const targets = [
    {
      name: 'read throughput, service / reference',
      value: ratio('read'),
      unit: '×',
      target: `≥ ${TARGETS.readRatio}×`,
      met: ratio('read') !== null && ratio('read') >= TARGETS.readRatio,
      note: ratio('read') === null ? notMeasured : undefined,
    },
    {
      name: 'create throughput, service / reference',
      value: ratio('create'),
      unit: '×',
      target: `≥ ${TARGETS.createRatio}×`,
      met: ratio('create') !== null && ratio('create') >= TARGETS.createRatio,
      note: ratio('create') === null ? notMeasured : undefined,
    },
    {
      // No target was set for submits; the ratio is reported beside create's.
      name: 'submit throughput, service / reference',
      value: ratio('submit'),
      unit: '×',
      target: null,
      met: null,
      note: ratio('submit') === null ? notMeasured : undefined,
    },
    {
      // No target was set for dowsing queries either; ratio and CPU per request are reported.
      name: 'dowsing throughput, service / reference',
      value: ratio('dowsing-query'),
      unit: '×',
      target: null,
      met: null,
      note: ratio('dowsing-query') === null ? notMeasured : undefined,
    },
    {
      name: 'service read p99 at 1,000 req/s (paced)',
      value: fixed?.latencyMs.p99 ?? null,
      unit: ' ms',
      target: `< ${TARGETS.fixedRateP99Ms} ms`,
      met:
        fixedSustained &&
        fixed.latencyMs.p99 !== null &&
        fixed.latencyMs.p99 < TARGETS.fixedRateP99Ms,
      note: !fixed
        ? notMeasured
        : !fixedSustained
          ? `offered load not sustained: ${fixed.rps} req/s answered`
          : fixed.fullGcs?.count
            ? `${fixed.fullGcs.count} full GC${fixed.fullGcs.count === 1 ? '' : 's'} of the service in its timed windows (per round: ${fixed.perRound?.map((r) => r.fullGcs).join(', ') ?? fixed.fullGcs.count})`
            : undefined,
    },
  ];
  return {
    generatedAt: new Date().toISOString(),
    environment: environmentInfo(),
    settings: { ...settingsInfo(), ...extra },
    phases,
    ratios: {
      read: ratio('read'),
      create: ratio('create'),
      submit: ratio('submit'),
      dowsingQuery: ratio('dowsing-query'),
    },
    apiKeyVersusJwt: apiKeyVersusJwt(find('read-api-key', 'service'), find('read', 'service')),
    limiterCost: limiterCost(find('read', 'service'), find('read-unlimited', 'service')),
    // reference CPU µs per request ÷ service's: the same comparison, less sensitive to how the cores were shared
    cpuEfficiencyRatios: {
      read: cpuRatio('read'),
      create: cpuRatio('create'),
      submit: cpuRatio('submit'),
      dowsingQuery: cpuRatio('dowsing-query'),
    },
    disturbedPhases: phases
      .filter(
        (p) =>
          p.machine && (p.machine.otherPct > NOISE.otherPct || p.machine.stealPct > NOISE.stealPct),
      )
      .map((p) => `${p.phase}/${p.server}`),
    targets,
  };
}

function environmentInfo() {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    platform: `${os.type()} ${os.release()}`,
    database: redactUrl(CONFIG.databaseUrl),
    redis: redactUrl(CONFIG.redisUrl),
  };
}

function settingsInfo() {
  return {
    durationS: CONFIG.duration,
    connections: CONFIG.connections,
    pipelining: 1,
    rounds: CONFIG.rounds,
    warmupS: CONFIG.warmup,
    fixedRate: CONFIG.fixedRate,
    databasePoolMax: CONFIG.poolMax,
    serviceLogLevel: CONFIG.logLevel,
    profiling: CONFIG.profile,
    webhooks: CONFIG.webhooks,
    analyses: CONFIG.analyses,
    patterns: CONFIG.patterns,
    dowsing: CONFIG.dowsing,
    history: CONFIG.history,
    reports: CONFIG.reports,
    lists: CONFIG.lists,
    organizationLimits: BENCH_LIMITS,
  };
}

/** What an API-key request costs the service compared with the same request carrying a JWT. */
function apiKeyVersusJwt(apiKey, jwt) {
  if (!apiKey || !jwt) return null;
  return {
    rpsRatio: Number((apiKey.rps / jwt.rps).toFixed(3)),
    cpuUsPerRequest: {
      apiKey: apiKey.serverCpu?.usPerRequest ?? null,
      jwt: jwt.serverCpu?.usPerRequest ?? null,
    },
    p99Ms: { apiKey: apiKey.latencyMs.p99, jwt: jwt.latencyMs.p99 },
  };
}

/** The service's read with the request limiter against the same read with RATE_LIMITS=off. */
function limiterCost(limited, unlimited) {
  if (!limited || !unlimited) return null;
  return {
    rpsRatio: Number((limited.rps / unlimited.rps).toFixed(3)),
    cpuUsPerRequest: {
      limited: limited.serverCpu?.usPerRequest ?? null,
      unlimited: unlimited.serverCpu?.usPerRequest ?? null,
    },
    p99Ms: { limited: limited.latencyMs.p99, unlimited: unlimited.latencyMs.p99 },
  };
}

function mergeCodes(a, b) {
  const out = { ...a };
  for (const [code, { count }] of Object.entries(b ?? {}))
    out[code] = { count: (out[code]?.count ?? 0) + count };
  return out;
}

function printReport(report) {
  const s = report.settings;
  const e = report.environment;
  const fmt = (n, digits = 2) =>
    n === null || n === undefined
      ? '-'
      : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const lines = [
    '',
    `Session Analysis Service benchmark — ${report.generatedAt}`,
    `Node ${e.node}, ${e.cpus} × ${e.cpuModel}; load generator, servers, PostgreSQL and Redis share this machine.`,
    `${s.connections} connections, pipelining 1, ${s.durationS} s per phase${s.rounds > 1 ? ` × ${s.rounds} rounds (ABBA order)` : ''}, ${s.warmupS} s warm-up per server; DATABASE_POOL_MAX=${s.databasePoolMax} for both.`,
    `Service runs with LOG_LEVEL=${s.serviceLogLevel} (per-request access logs off unless info or lower); the reference does not log.`,
    ...(s.profiling
      ? [
          'WARNING: BENCH_PROFILE=1 — the CPU profiler slows the service; these numbers are not comparable.',
        ]
      : []),
    '',
  ];
  const header = [
    'phase',
    'server',
    'req/s',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'max ms',
    'non-2xx',
    'errors',
    'CPU %',
    'CPU µs/req',
  ];
  const widths = [43, 10, 7, 8, 8, 8, 8, 7, 6, 6, 10];
  const row = (cells) =>
    cells
      .map((cell, i) => (i < 2 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i])))
      .join(' ');
  lines.push(row(header), '-'.repeat(widths.reduce((a, b) => a + b + 1, -1)));
  for (const p of report.phases) {
    lines.push(
      row([
        p.failed ? `${p.label} FAILED` : p.label,
        p.server,
        fmt(p.rps, 0),
        fmt(p.latencyMs.p50),
        fmt(p.latencyMs.p90),
        fmt(p.latencyMs.p99),
        fmt(p.latencyMs.max, 1),
        p.non2xx,
        p.errors + (p.timeouts ? ` (${p.timeouts} t/o)` : ''),
        p.serverCpu?.percentOfOneCore ?? '-',
        p.serverCpu?.usPerRequest ?? '-',
      ]),
    );
  }
  lines.push(
    'CPU = user+system time of the server process (all threads) during the phase: % of one core, and per answered request.',
  );
  const disturbed = report.phases.filter((p) =>
    report.disturbedPhases.includes(`${p.phase}/${p.server}`),
  );
  const cores = report.environment.cpus;
  if (report.phases.some((p) => p.machine)) {
    lines.push(
      '',
      `Machine CPU during each phase, % of one core (${cores} cores = ${cores * 100} %):`,
    );
    const mrow = (cells) =>
      cells
        .map((cell, i) => (i < 2 ? String(cell).padEnd(widths[i]) : String(cell).padStart(9)))
        .join(' ');
    lines.push(
      mrow(['phase', 'server', 'all', 'server', 'pg+redis', 'generator', 'other', 'steal']),
    );
    for (const p of report.phases.filter((x) => x.machine)) {
      const m = p.machine;
      lines.push(
        mrow([
          p.failed ? `${p.label} FAILED` : p.label,
          p.server,
          m.busyPct,
          m.serverPct,
          m.databasesPct,
          m.generatorPct,
          m.otherPct,
          m.stealPct,
        ]),
      );
    }
  }
  if (disturbed.length > 0) {
    lines.push(
      `WARNING: other load on the machine during ${disturbed.map((p) => `${p.phase}/${p.server}`).join(', ')} (other processes > ${NOISE.otherPct} % or steal > ${NOISE.stealPct} % of a core): numbers are disturbed, run again.`,
    );
  }
  lines.push(
    '',
    'target                                       measured     target      result',
    '-'.repeat(80),
  );
  for (const t of report.targets) {
    const value =
      t.value === null ? '-' : t.unit === '×' ? `${t.value.toFixed(2)}×` : `${fmt(t.value)} ms`;
    const verdict =
      t.value === null
        ? 'NOT MEASURED'
        : t.target === null
          ? 'no target'
          : t.met
            ? 'met'
            : 'NOT MET';
    lines.push(
      `${t.name.padEnd(44)} ${value.padStart(9)}    ${(t.target ?? '-').padEnd(10)}  ${verdict}${t.note && t.value !== null ? ` (${t.note})` : ''}`,
    );
  }
  const eff = report.cpuEfficiencyRatios;
  if (eff.read !== null && eff.create !== null) {
    lines.push(
      `(CPU per request, reference ÷ service — the same comparison, less sensitive to core sharing: read ${eff.read.toFixed(2)}×, create ${eff.create.toFixed(2)}×${eff.submit === null ? '' : `, submit ${eff.submit.toFixed(2)}×`}${eff.dowsingQuery === null ? '' : `, dowsing query ${eff.dowsingQuery.toFixed(2)}×`})`,
    );
  }
  const versus = report.apiKeyVersusJwt;
  if (versus) {
    lines.push(
      `API key versus JWT on the service's read: ${versus.rpsRatio.toFixed(2)}× the requests/s, CPU ${versus.cpuUsPerRequest.apiKey} µs versus ${versus.cpuUsPerRequest.jwt} µs per request, p99 ${fmt(versus.p99Ms.apiKey)} ms versus ${fmt(versus.p99Ms.jwt)} ms.`,
    );
  }
  const limiter = report.limiterCost;
  if (limiter) {
    lines.push(
      `Request limiter on the service's read: ${limiter.rpsRatio.toFixed(2)}× the requests/s of RATE_LIMITS=off, CPU ${limiter.cpuUsPerRequest.limited} µs versus ${limiter.cpuUsPerRequest.unlimited} µs per request, p99 ${fmt(limiter.p99Ms.limited)} ms versus ${fmt(limiter.p99Ms.unlimited)} ms.`,
    );
  }
  const auto = report.phases.find((p) => p.phase === 'fixed-autocannon');
  const refPaced = report.phases.find((p) => p.phase === 'fixed-paced' && p.server === 'reference');
  lines.push(
    '',
    'The fixed-rate target is judged on the paced run: open loop, requests started on an even 1 ms schedule.',
  );
  if (refPaced) {
    lines.push(
      `For scale, the reference at the same paced load: ${fmt(refPaced.rps, 0)} req/s answered, p99 ${fmt(refPaced.latencyMs.p99)} ms.`,
    );
  }
  if (auto) {
    lines.push(
      `autocannon's overallRate run (p99 ${fmt(auto.latencyMs.p99)} ms) is shown for comparison only: each connection sends its per-second`,
      `quota back-to-back at the top of every second (bursts of ${s.connections} concurrent requests), which is not a steady ${s.fixedRate.toLocaleString('en-US')} req/s.`,
    );
  }
  if (report.phases.some((p) => p.failed))
    lines.push(
      'Rows marked FAILED are phases that failed (see their reports above); they count in no ratio or target.',
    );
  if (report.webhooks) lines.push('', ...webhookLines(report.webhooks));
  if (report.analysesWorker) lines.push('', ...analysesWorkerLines(report.analysesWorker));
  if (report.analysesLatency) lines.push('', ...analysesLatencyLines(report.analysesLatency));
  if (report.patternRecognition) lines.push('', ...patternLines(report.patternRecognition));
  if (report.dowsingHeatmap) lines.push('', ...heatmapLines(report.dowsingHeatmap));
  if (report.history) lines.push('', ...historyLines(report.history));
  process.stdout.write(`${lines.join('\n')}\n\n`);
  if (report.sessionLists) printSessionListPhase(report.sessionLists);
}

const fmtNumber = (n, digits = 2) =>
  n === null || n === undefined
    ? '-'
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The webhook phase's figures as text; parts a failed phase did not reach are left out. */
function webhookLines(w) {
  const fmt = fmtNumber;
  const s = w.settings;
  const t = w.throughput;
  const d = w.direct;
  const l = w.latency;
  const lines = [];
  if (s)
    lines.push(
      `Webhook delivery (run once): ${(s.workers ?? 1) === 1 ? 'worker' : `${s.workers} workers`} → node:https receiver on 127.0.0.1, ${s.endpoints} endpoints subscribed to session.created,`,
      `at most ${s.concurrency} in flight (WEBHOOK_ENDPOINT_CONCURRENCY=${s.endpointConcurrency} per endpoint, WEBHOOK_WORKER_CONCURRENCY=${s.workerConcurrency}).`,
    );
  if (t)
    lines.push(
      `  throughput  ${fmt(t.deliveries, 0)} deliveries of ${fmt(t.sessions, 0)} events waiting in the outbox, first to last received in ${fmt(t.spanS)} s: ${fmt(t.deliveriesPerS, 0)} deliveries/s`,
      `              worker CPU ${fmt(t.workerCpuMsPerDelivery, 3)} ms per delivery (${t.workerPercentOfOneCore ?? '-'} % of one core${(s?.workers ?? 1) > 1 ? `, ${s.workers} workers together` : ''}); ${t.receiverConnections} TLS connections`,
    );
  if (d)
    lines.push(
      `  direct      ${fmt(d.requests, 0)} signed POSTs from one undici client, concurrency ${s.concurrency}, in ${fmt(d.spanS)} s: ${fmt(d.requestsPerS, 0)} requests/s; client CPU ${fmt(d.clientCpuMsPerRequest, 3)} ms per request; ${d.receiverConnections} TLS connections`,
      `  ratio       delivery pipeline ÷ direct HTTPS to the same receiver: ${w.throughputRatio == null ? '-' : `${w.throughputRatio.toFixed(2)}×`}`,
    );
  if (l) {
    const lat = l.stateChangeToDeliveryMs;
    lines.push(
      `  latency     ${s.pacedSessionsPerS} sessions/s for ${s.pacedDurationS} s (${fmt(l.deliveries, 0)} deliveries, ${fmt(l.deliveriesPerS, 0)}/s): state change → delivery received`,
      `              p50 ${fmt(lat.p50)} ms, p95 ${fmt(lat.p95)} ms, p99 ${fmt(lat.p99)} ms, max ${fmt(lat.max)} ms; worker CPU ${fmt(l.workerCpuMsPerDelivery, 3)} ms per delivery`,
      `              stages p50/p99: created → relay pass ${fmt(l.stagesMs.createdToRelayPass.p50)}/${fmt(l.stagesMs.createdToRelayPass.p99)} ms, → attempt started ${fmt(l.stagesMs.createdToAttemptStart.p50)}/${fmt(l.stagesMs.createdToAttemptStart.p99)} ms; attempt ${fmt(l.stagesMs.attemptDuration.p50)}/${fmt(l.stagesMs.attemptDuration.p99)} ms`,
      `              (POST /v1/sessions meanwhile: p50 ${fmt(l.createLatencyMs.p50)} ms, p99 ${fmt(l.createLatencyMs.p99)} ms)`,
    );
  }
  if (w.deliveryStates) {
    const states = Object.entries(w.deliveryStates)
      .map(([state, count]) => `${fmt(count, 0)} ${state}`)
      .join(', ');
    lines.push(
      `  deliveries  ${states}; ${w.duplicates} duplicates; signatures of each endpoint's first delivery verified`,
    );
  }
  const windows = [
    ['throughput', t?.machine],
    ['direct', d?.machine],
    ['latency', l?.machine],
  ].filter(([, m]) => m);
  if (windows.length > 0) {
    const cells = ['all', 'worker', 'api', 'receiver', 'pg+redis', 'generator', 'other', 'steal'];
    const keys = [
      'busyPct',
      'workerPct',
      'apiPct',
      'receiverPct',
      'databasesPct',
      'generatorPct',
      'otherPct',
      'stealPct',
    ];
    lines.push(
      '  machine CPU, % of one core (generator = this process: the session creates, or the direct client):',
      `  ${'window'.padEnd(12)}${cells.map((c) => c.padStart(10)).join('')}`,
    );
    for (const [name, m] of windows)
      lines.push(
        `  ${name.padEnd(12)}${keys.map((k) => String(m[k] ?? '-').padStart(10)).join('')}`,
      );
  }
  const disturbed = windows
    .filter(([, m]) => m.otherPct > NOISE.otherPct || m.stealPct > NOISE.stealPct)
    .map(([name]) => name);
  if (disturbed.length > 0)
    lines.push(
      `  WARNING: other load on the machine during ${disturbed.join(', ')} (other processes > ${NOISE.otherPct} % or steal > ${NOISE.stealPct} % of a core): run again.`,
    );
  if (w.problems?.length > 0) lines.push(`  PROBLEMS: ${w.problems.join('; ')}`);
  return lines;
}

function log(message) {
  process.stdout.write(`[bench] ${message}\n`);
}

// ------------------------------------------------------------------ entry

const runner = new PhaseRunner({
  dir: RESULTS,
  root: ROOT,
  log,
  header: { environment: environmentInfo(), settings: settingsInfo() },
});
let interrupted = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    interrupted = signal;
    process.stderr.write(`\n${signal}: stopping the servers…\n`);
    runner.saveRun({ interrupted: signal });
    stopAll().finally(() => process.exit(130));
  });
}

let ok = false;
try {
  if (!existsSync(join(ROOT, 'dist/apps/api/src/main.js')))
    throw new Error(
      'dist/apps/api/src/main.js is missing: run `npm run build` first (or `npm run bench`)',
    );
  ({ TypeID: TypeIDClass } = await import('typeid-js'));
  log(
    `Run ${runner.stamp}: each phase's figures go to bench/results/${runner.stamp}-<phase>.json.`,
  );
  await main(runner);
  ok = true;
} catch (error) {
  // Only what no phase caught gets here (a bug of the bench, or the machine failing it).
  process.stderr.write(`\n[bench] ERROR outside any phase:\n${describeError(error)}\n`);
  runner.saveRun({ error: errorToJson(error) });
}
await stopAll();
if (!interrupted) {
  const allRan = runner.finish();
  process.exit(ok && allRan ? 0 : 1);
}
