// What a phase's figures are made of: percentiles and the summary of a run of requests, and the
// CPU time of the servers, of this process and of the rest of the machine over a window
// (machine.mjs reads them from /proc).

import { performance } from 'node:perf_hooks';
import { cpuMs, machineSnapshot } from './machine.mjs';

/** The p-th percentile of `sorted` (nearest rank); null when it is empty. */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** A run of requests as a row: requests/s, latency percentiles, failures, the error share. */
export function summarize(base, latencies, okCount, failures, durationS) {
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
export const round2 = (value) => (value === null ? null : Math.round(value * 100) / 100);

/** Runs a phase; adds the server process's CPU time and how busy the rest of the machine was. */
export async function measured(pid, run) {
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

/** CPU time of some processes, of the machine and of this process, at one moment (see cpuBetween). */
export function cpuSnapshot(pids) {
  return {
    at: performance.now(),
    cpu: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)])),
    machine: machineSnapshot(),
    bench: process.cpuUsage(),
  };
}

/** CPU ms of each process between two snapshots, and the machine's CPU split in % of one core. */
export function cpuBetween(a, b) {
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

const ms = (value) => (value === null || value === undefined ? null : round2(value));
/** p50, p95, p99 and max of `values`, in ms (those not finite left out). */
export function latencySummary(values) {
  const sorted = Float64Array.from(values.filter(Number.isFinite)).sort();
  return {
    p50: ms(percentile(sorted, 50)),
    p95: ms(percentile(sorted, 95)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted.length ? sorted[sorted.length - 1] : null),
  };
}
