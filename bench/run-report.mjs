// bench/run.mjs's report: one row per HTTP phase and server (merged over rounds; `rowOf` and
// `rowLine` for a single phase as it ends), the ratios and targets (`buildReport`), and the
// whole report printed at the end, with every other phase's figures once more (`printReport`).

import os from 'node:os';
import { analysesLatencyLines, analysesWorkerLines } from './analyses.mjs';
import { heatmapLines } from './dowsing-heatmap.mjs';
import { redactUrl } from './helpers.mjs';
import { historyLines } from './history.mjs';
import { BENCH_LIMITS } from './limits.mjs';
import { NOISE } from './machine.mjs';
import { fullGcSummary } from './managed-server.mjs';
import { summarize } from './measure.mjs';
import { patternLines } from './patterns.mjs';
import { CONFIG, TARGETS } from './run-config.mjs';
import { printSessionListPhase } from './session-lists.mjs';
import { webhookLines } from './webhooks.mjs';

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
export const rowOf = (entry) => ({
  ...summarizeRuns([entry]),
  ...(CONFIG.rounds > 1 ? { round: entry.round } : {}),
});

/** One line per HTTP phase, printed as it ends. */
export function rowLine(row) {
  const fmt = (n, digits = 2) =>
    n === null || n === undefined
      ? '-'
      : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `  → ${row.label} on ${row.server}: ${fmt(row.rps, 0)} req/s, p50 ${fmt(row.latencyMs.p50)} ms, p90 ${fmt(row.latencyMs.p90)} ms, p99 ${fmt(row.latencyMs.p99)} ms, max ${fmt(row.latencyMs.max, 1)} ms; ${row.non2xx} non-2xx, ${row.errors} errors${row.timeouts ? ` (${row.timeouts} timeouts)` : ''}${Object.keys(row.statusCodes).some((code) => code >= 300) ? ` ${JSON.stringify(row.statusCodes)}` : ''}; server CPU ${row.serverCpu?.percentOfOneCore ?? '-'} % of a core, ${row.serverCpu?.usPerRequest ?? '-'} µs/request${row.fullGcs ? `; ${row.fullGcs.count} full GC${row.fullGcs.count === 1 ? '' : 's'} of the server${row.fullGcs.count ? ` (longest pause ${fmt(row.fullGcs.longestPauseMs, 1)} ms)` : ''}` : ''}`;
}

/**
 * The report of the HTTP phases: one row per phase and server, merged over the rounds that
 * succeeded; a failed phase's measurement gets a row of its own (marked failed) and counts in no
 * ratio or target. A ratio or target whose phases are missing is null ("not measured").
 */
export function buildReport(raw, extra) {
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

export function environmentInfo() {
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

export function settingsInfo() {
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

export function printReport(report) {
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
