// What the bench scripts read about this machine and its processes (Linux /proc): CPU time and
// resident memory of a process, the machine's busy/steal time with PostgreSQL's and Redis's share,
// waiting for other load to settle before measuring, and a free port. Shared by bench/run.mjs,
// bench/queue-drain.mjs, bench/memory.mjs and bench/scale.mjs.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { Redis } from 'ioredis';

const DEFAULT_REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const benchLog = (message) => process.stdout.write(`[bench] ${message}\n`);

export const NOISE = { otherPct: 15, stealPct: 5 }; // flag phases where something else took this much CPU (% of one core)

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** CPU time (user + system, all threads) of a process in ms, from /proc (Linux); null elsewhere. */
export const CLK_TCK = 100; // USER_HZ, 100 on every mainstream Linux
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime, stime
  } catch {
    return null;
  }
}

/**
 * Machine-wide CPU accounting (Linux): busy and steal time of all cores, and the CPU time of
 * PostgreSQL and Redis processes, so a phase disturbed by something else can be flagged.
 */
export const dependencyPids = { postmaster: null, redis: null }; // set in main() when PostgreSQL / Redis run on this machine

export function machineSnapshot() {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = cpu;
    const databases = new Map(); // pid → CPU ms, per process so that backends ending mid-phase do not skew the sum
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const pid = Number(entry);
        const ppid = Number(fields[1]);
        const ours =
          pid === dependencyPids.redis ||
          pid === dependencyPids.postmaster ||
          ppid === dependencyPids.postmaster;
        if (!ours) continue;
        databases.set(entry, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK);
      } catch {
        // the process ended meanwhile
      }
    }
    return {
      busyMs: ((user + nice + system + irq + softirq) * 1000) / CLK_TCK,
      stealMs: (steal * 1000) / CLK_TCK,
      idleMs: ((idle + iowait) * 1000) / CLK_TCK,
      databases,
    };
  } catch {
    return null;
  }
}

/**
 * Between phases both servers are idle, so CPU in use then is someone else's: wait (up to
 * `maxWaitS`) until it is under `NOISE.otherPct` % of a core, so phases are not disturbed.
 */
export async function quietMachine(maxWaitS = 30, log = benchLog) {
  const deadline = Date.now() + maxWaitS * 1000;
  let said = false;
  for (;;) {
    const before = machineSnapshot();
    const bench = process.cpuUsage();
    await sleep(1_000);
    const after = machineSnapshot();
    if (!before || !after) return;
    const own = (process.cpuUsage(bench).user + process.cpuUsage(bench).system) / 1000;
    const otherPct = Math.round(
      ((after.busyMs - before.busyMs + after.stealMs - before.stealMs - own) / 1000) * 100,
    );
    if (otherPct <= NOISE.otherPct) return;
    if (Date.now() > deadline) {
      log(`  other load still at ${otherPct} % of a core after ${maxWaitS} s; measuring anyway`);
      return;
    }
    if (!said) log(`  waiting for other load on the machine to settle (${otherPct} % of a core) …`);
    said = true;
  }
}

/** Resident memory of a process in KiB (VmRSS from /proc/<pid>/status); null when it is gone. */
export function rssKb(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** The PostgreSQL postmaster and Redis server processes, when they run on this machine (for the CPU split). */
export async function findDependencyPids(db, redisUrl = DEFAULT_REDIS_URL) {
  try {
    const { rows } = await db.query('SELECT pg_backend_pid() AS pid');
    const stat = readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8');
    dependencyPids.postmaster = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    // PostgreSQL runs elsewhere (or in a container with its own PID namespace)
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    if (
      pid &&
      existsSync(`/proc/${pid}/stat`) &&
      readFileSync(`/proc/${pid}/stat`, 'utf8').includes('(redis-server)')
    )
      dependencyPids.redis = pid;
  } catch {
    // not reachable here; the API will report it
  } finally {
    redis.disconnect();
  }
}
