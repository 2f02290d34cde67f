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
//
// This file is the order of the phases; each lives in a module of its own:
//   setup.mjs          setup and warm-up: database, servers, token, API key, seed session
//   parity.mjs         parity: both servers do the same thing
//   http-phases.mjs    read, read-unlimited, read-api-key, fixed-paced, fixed-autocannon, create,
//                      submit, dowsing-query (closed loop with autocannon, open loop paced)
//   completer.mjs      stands in for a worker during the HTTP phases
//   webhooks.mjs       webhooks: delivery through the worker to a local HTTPS receiver
//   analyses.mjs       analyses-worker, analyses-latency (run.mjs's machinery: analyses-tools.mjs)
//   patterns.mjs, dowsing-heatmap.mjs, history.mjs, reports.mjs, audit.mjs, session-lists.mjs
//                      the phases after them, one each
//   run-report.mjs     the rows, ratios and targets (bench/results/…-run.json) and the printed report
// and what they share: run-config.mjs (every setting, read once), children.mjs (processes),
// managed-server.mjs (servers checked and restarted between phases), load.mjs (load generators),
// measure.mjs (percentiles, CPU accounting), outbox.mjs, helpers.mjs, and phases.mjs (PhaseRunner:
// each phase printed and saved as it ends).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { analysesTools } from './analyses-tools.mjs';
import {
  analysesLatencyLines,
  analysesLatencyPhase,
  analysesWorkerLines,
  analysesWorkerPhase,
} from './analyses.mjs';
import { auditLines, auditPhase } from './audit.mjs';
import { stopAll } from './children.mjs';
import { startCompleter } from './completer.mjs';
import { heatmapLines, heatmapPhase } from './dowsing-heatmap.mjs';
import { describeError, errorToJson } from './errors.mjs';
import { log } from './helpers.mjs';
import { historyLines, historyPhase } from './history.mjs';
import { httpPhases } from './http-phases.mjs';
import { quietMachine } from './machine.mjs';
import { fullGcSummary } from './managed-server.mjs';
import { parityCheck } from './parity.mjs';
import { patternLines, patternPhase } from './patterns.mjs';
import { PhaseRunner } from './phases.mjs';
import { reportsLines, reportsPhase } from './reports.mjs';
import { CONFIG, RESULTS, ROOT } from './run-config.mjs';
import { buildReport, environmentInfo, printReport, settingsInfo } from './run-report.mjs';
import { printSessionListPhase, sessionListPhase } from './session-lists.mjs';
import { setUp, warmUp } from './setup.mjs';
import { webhookLines, webhookPhase } from './webhooks.mjs';

/** A phase module's `…Lines` as PhaseRunner's printers (its result, or what a failed one measured). */
const printedBy = (lines) => ({
  print: (result) => process.stdout.write(`\n${lines(result).join('\n')}\n\n`),
  printPartial: (partial) => process.stdout.write(`${lines(partial).join('\n')}\n`),
});

/** Runs phase `name`, or records it skipped when `off` names the setting that turned it off. */
const optional = (runner, name, off, run, printers) =>
  off ? (runner.skip(name, off), null) : runner.run(name, run, printers);

/**
 * A phase on the API: the API (and the reference, when it loads it too) restarted first if
 * unusable, the machine quiet (unless `quiet` is false), and the API checked healthy after.
 */
async function onApi(ctx, name, measure, { reference = false, quiet = true } = {}) {
  await ctx.api.ensure(name);
  if (reference) await ctx.reference.ensure(name);
  if (quiet) await quietMachine();
  const result = await measure();
  await ctx.api.assertHealthy();
  return result;
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

    // Stands in for a worker finishing sessions and analyses during the HTTP phases (completer.mjs).
    completer = await startCompleter(ctx.sessionId, ctx.organizationId);

    await runner.run('warm-up', (partial) => warmUp(ctx, partial));
    const raw = await httpPhases(runner, ctx);

    // Webhook delivery: once, after every round (it starts the worker, which would disturb them).
    const webhooks = await optional(
      runner,
      'webhooks',
      !CONFIG.webhooks.enabled && 'BENCH_WEBHOOKS=0',
      (partial) => webhookPhase(ctx, partial),
      printedBy(webhookLines),
    );

    const completerError = await completer.stop();
    completer = null;
    if (completerError)
      log(`note: the completer failed: ${describeError(completerError, { oneLine: true })}`);

    // Analyses through the worker: a backlog drained, then paced submits (no completer now, so
    // what the phases submit stays queued for the worker they start).
    const analysesOff = !CONFIG.analyses.enabled && 'BENCH_ANALYSES=0';
    const tools = analysesOff ? null : analysesTools(ctx);
    const analysesWorker = await optional(
      runner,
      'analyses-worker',
      analysesOff,
      (partial) => analysesWorkerPhase(ctx, tools, CONFIG.analyses, partial),
      printedBy(analysesWorkerLines),
    );
    const analysesLatency = await optional(
      runner,
      'analyses-latency',
      analysesOff,
      (partial) => analysesLatencyPhase(ctx, tools, CONFIG.analyses, partial),
      printedBy(analysesLatencyLines),
    );

    const api = { apiBase: ctx.api.base, operatorHeaders: ctx.readHeaders, log };
    const apiFullGcs = (window) => fullGcSummary(ctx.api.fullGcs(window));
    const patterns = await optional(
      runner,
      'pattern-recognition',
      !CONFIG.patterns.enabled && 'BENCH_PATTERNS=0',
      (partial) =>
        onApi(ctx, 'pattern-recognition', () =>
          patternPhase({ ...api, db: ctx.db, root: ROOT, ...CONFIG.patterns, partial }),
        ),
      printedBy(patternLines),
    );

    const heatmaps = await optional(
      runner,
      'dowsing-heatmap',
      !CONFIG.dowsing.enabled && 'BENCH_DOWSING=0',
      (partial) =>
        onApi(ctx, 'dowsing-heatmap', () =>
          heatmapPhase({
            ...api,
            db: ctx.db,
            root: ROOT,
            readings: CONFIG.dowsing.heatmapReadings,
            requests: CONFIG.dowsing.heatmapRequests,
            warmup: CONFIG.dowsing.heatmapWarmup,
            partial,
          }),
        ),
      printedBy(heatmapLines),
    );

    const history = await optional(
      runner,
      'history',
      !CONFIG.history.enabled && 'BENCH_HISTORY=0',
      (partial) =>
        onApi(
          ctx,
          'history',
          () =>
            historyPhase({
              ...api,
              db: ctx.db,
              databaseUrl: CONFIG.databaseUrl,
              poolMax: CONFIG.poolMax,
              root: ROOT,
              ...CONFIG.history,
              referenceBase: ctx.reference.base,
              apiFullGcs,
              partial,
            }),
          { reference: true },
        ),
      printedBy(historyLines),
    );

    // Reports (issue 16): the worker's lib in a child process, on a database of its own.
    const reports = await optional(
      runner,
      'reports',
      !CONFIG.reports.enabled && 'BENCH_REPORTS=0',
      async (partial) => {
        await quietMachine();
        return reportsPhase({ log, partial });
      },
      printedBy(reportsLines),
    );

    // Audit log write cost (issue 41): bench/audit.mjs, on the API, A/B against a PostgreSQL rule.
    await optional(
      runner,
      'audit',
      !CONFIG.audit.enabled && 'BENCH_AUDIT=0',
      (partial) =>
        onApi(ctx, 'audit', () =>
          auditPhase({
            ...api,
            apiPid: () => ctx.api.pid,
            databaseUrl: CONFIG.databaseUrl,
            root: ROOT,
            apiFullGcs,
            partial,
          }),
        ),
      printedBy(auditLines),
    );

    const lists = await optional(
      runner,
      'session-lists',
      !CONFIG.lists.enabled && 'BENCH_LISTS=0',
      (partial) =>
        onApi(
          ctx,
          'session-lists',
          () =>
            sessionListPhase({
              ...api,
              shared: ctx.shared,
              count: CONFIG.lists.sessions,
              requests: CONFIG.lists.requests,
              warmup: 20,
              apiFullGcs,
              partial,
            }),
          { quiet: false },
        ),
      {
        print: (result) => printSessionListPhase(result),
        printPartial: (partial) => partial.rows?.length && printSessionListPhase(partial),
      },
    );

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
