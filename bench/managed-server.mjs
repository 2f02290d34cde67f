// The servers bench/run.mjs loads (the API, the API without request limits, the reference), each
// managed: started with SERVER_NODE_ARGS, checked after every phase that loaded it, restarted
// before the next phase that needs it when it died or stopped answering — saying why, down to
// what its database connections were doing. Also their full garbage collections (gc-log-hook.mjs).

import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { logTail, running, startChild, stopChild, waitFor } from './children.mjs';
import { describeError } from './errors.mjs';
import { log, sleep, withTimeout } from './helpers.mjs';
import { RESULTS } from './run-config.mjs';

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
export function fullGcSummary(gcs) {
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
export function managedServer({ runner, db, name, port, args, childEnv, readyPath }) {
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
