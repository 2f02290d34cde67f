// Target analyses through the worker (run by bench/run.mjs after the webhook phase; see
// bench/README.md, "Analyses through the worker"):
//   analyses-worker   a backlog of quick_scans submitted while no worker runs, then ONE worker
//                     (SIMULATED_STEP_MS=0, default WORKER_CONCURRENCY) drains it: completions/s
//                     over the steady part (10 % to 90 % of the backlog), and the worker's CPU per
//                     analysis; then the same worker on a backlog of sessions, for scale.
//   analyses-latency  paced submits (20/s for 10 s, open loop) with the worker running:
//                     completed_at − created_at of each analysis, and where that time goes.
// Both read their figures from the rows (times the API and the worker wrote with the same
// clock), not from a subscriber. `tools` is run.mjs's machinery (bench/analyses-tools.mjs:
// processes, CPU accounting, the paced generator), passed in so this file does one job.

import autocannon from 'autocannon';

/** Each kind of work: its table, the route that creates it, and its `created` event. */
const KINDS = {
  analyses: {
    table: 'analyses',
    path: '/v1/analysis/targets',
    body: 'analysis',
    created: 'analysis.created',
    noun: 'analyses',
  },
  sessions: {
    table: 'sessions',
    path: '/v1/sessions',
    body: 'session',
    created: 'session.created',
    noun: 'sessions',
  },
};
/** The steady part of a drain: from this share of the backlog finished to the next one. */
const STEADY = [0.1, 0.9];
const POLL_MS = 200;

const round = (value, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value)
    ? null
    : Number(value.toFixed(digits));

// ------------------------------------------------------------------ analyses-worker

export async function analysesWorkerPhase(ctx, tools, settings, result) {
  const problems = [];
  result.settings = {
    backlog: settings.backlog,
    sessionBacklog: settings.sessionBacklog,
    connections: Math.min(tools.connections, settings.backlog),
    steadyWindow: STEADY,
    workerEnv: { SIMULATED_STEP_MS: 0, WORKER_CONCURRENCY: tools.workerConcurrency },
  };
  result.problems = problems;
  await ctx.api.ensure('analyses-worker');
  const marked = await tools.quietOutbox();
  tools.log(`Marked ${marked} outbox rows relayed; emptied the bench's job queues.`);

  result.analyses = await drain(ctx, tools, KINDS.analyses, settings.backlog, problems);
  if ((result.analyses.statuses.completed ?? 0) < result.analyses.submitted)
    problems.push(
      `analyses: not every one completed (${JSON.stringify(result.analyses.statuses)}); see bench/results/worker-analyses.log`,
    );
  if (settings.sessionBacklog > 0) {
    try {
      result.sessions = await drain(ctx, tools, KINDS.sessions, settings.sessionBacklog, problems);
    } catch (error) {
      // The sessions are only the scale beside the analyses: their failure is named, not fatal.
      problems.push(`sessions (for scale): ${tools.describe(error)}`);
    }
    const a = result.analyses.steady;
    const s = result.sessions?.steady;
    if (a?.perS && s?.perS)
      result.analysesPerSession = {
        items: round(a.perS / s.perS, 2),
        stateChanges: round(
          (a.perS * result.analyses.stateChangesPerItem) /
            (s.perS * result.sessions.stateChangesPerItem),
          2,
        ),
      };
  }
  const apiProblem = await ctx.api.problem();
  if (apiProblem) problems.push(`after this phase, ${apiProblem}`);
  if (problems.length > 0) throw new Error(`analyses-worker: ${problems.join('; ')}`);
  return result;
}

/**
 * Submits `count` pieces of work while no worker runs, starts one worker and follows the rows
 * until every piece has finished (or nothing moved for tools.wait.idleMs). Throughput from the
 * rows' completed_at; the worker's CPU from /proc, sampled every POLL_MS.
 */
async function drain(ctx, tools, kind, count, problems) {
  const { api, db, writeHeaders } = ctx;
  const organization = tools.organizationUuid;
  await tools.quietMachine();
  tools.log(
    `${kind.noun} through one worker: ${count.toLocaleString('en')} submitted (POST ${kind.path}), then the worker starts …`,
  );
  const since = new Date();
  const backlog = await autocannon({
    url: `${api.base}${kind.path}`,
    method: 'POST',
    headers: writeHeaders,
    body: tools.bodies[kind.body],
    connections: Math.min(tools.connections, count),
    amount: count,
    timeout: 10,
  });
  if (backlog['2xx'] !== count)
    problems.push(
      `${kind.noun}: ${count - backlog['2xx']} of ${count} backlog submits failed (${backlog.non2xx} non-2xx, ${backlog.errors} errors; codes ${JSON.stringify(backlog.statusCodeStats)})`,
    );
  const submitted = await countRows(db, kind, organization, since);
  if (submitted === 0) throw new Error(`${kind.noun}: no backlog was created`);
  await tools.endLeftovers(since);

  const worker = await tools.startWorker(`worker-${kind.noun}`);
  const workerReadyAt = Date.now();
  try {
    const samples = await follow(db, tools, kind, organization, since, submitted, worker);
    const last = samples.at(-1);
    if (last.finished < submitted)
      problems.push(
        `${kind.noun}: ${submitted - last.finished} of ${submitted} not finished ${tools.wait.idleMs / 1000} s after the last change`,
      );
    // The work is done; the outbox may not be: the events the worker wrote (started, progress,
    // completed) reach webhooks and live updates only once relayed. Wait for the relay to catch
    // up (also so the next worker does not inherit its backlog).
    const relay = await relayCatchUp(db, tools, organization, worker);
    if (relay.unrelayedAtEnd > 0)
      problems.push(`${kind.noun}: ${relay.unrelayedAtEnd} events never relayed`);
    // All of the worker's work for the backlog, from its readiness (the first sample) until its
    // relay caught up: relaying the backlog's events, scheduling, the steps, relaying theirs.
    const allIn = cpuOver(
      tools,
      { ...samples[0], finished: 0 },
      {
        finished: last.finished,
        snapshot: tools.cpuSnapshot({ worker: worker.child.pid, api: tools.apiPid() }),
      },
    );
    const { rows } = await db.query(
      `SELECT status, created_at, started_at, completed_at FROM ${kind.table}
        WHERE organization_id = $1 AND mode = 'live' AND created_at >= $2`,
      [organization, since],
    );
    const statuses = {};
    for (const row of rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1;
    const finishedAt = rows
      .filter((row) => row.completed_at !== null)
      .map((row) => row.completed_at.getTime())
      .sort((a, b) => a - b);
    // Events the worker wrote for this backlog (started, progress, completed or failed): the
    // state changes each piece of work costs, comparable across kinds.
    const {
      rows: [{ count: workerEvents }],
    } = await db.query(
      `SELECT count(*)::int AS count FROM events
        WHERE organization_id = $1 AND created_at >= $2 AND type LIKE $3 AND type <> $4`,
      [organization, since, `${kind.created.split('.')[0]}.%`, kind.created],
    );
    // When the relay first took the backlog's events (its transaction's now()).
    const {
      rows: [{ first_relayed: firstRelayed }],
    } = await db.query(
      `SELECT min(relayed_at) AS first_relayed FROM events
        WHERE organization_id = $1 AND created_at >= $2 AND type = $3`,
      [organization, since, kind.created],
    );
    const steady = steadyWindow(tools, finishedAt, samples, submitted);
    const whole = cpuOver(tools, samples.find((s) => s.finished > 0) ?? samples[0], last);
    return {
      submitted,
      submitLatencyMs: pick(backlog.latency, ['p50', 'p99']),
      submitsPerS: round(backlog.requests.average),
      workerStartupS: round(worker.startupS),
      statuses,
      stateChangesPerItem: round(workerEvents / Math.max(1, finishedAt.length), 2),
      firstToLast: {
        items: finishedAt.length,
        spanS: round((finishedAt.at(-1) - finishedAt[0]) / 1000, 2),
        perS:
          finishedAt.length > 1
            ? round(((finishedAt.length - 1) * 1000) / (finishedAt.at(-1) - finishedAt[0]))
            : null,
        workerCpuMsPerItem: whole.msPerItem,
      },
      steady,
      // From the worker's readiness: the relay's first pass over the backlog, then the first
      // piece of work finished.
      firstRelayedAfterS: firstRelayed ? round((firstRelayed - workerReadyAt) / 1000, 2) : null,
      relay,
      allInCpuMsPerItem: allIn.msPerItem,
      firstFinishedAfterS:
        finishedAt.length > 0 ? round((finishedAt[0] - workerReadyAt) / 1000, 2) : null,
    };
  } finally {
    await tools.stopChild(worker.child);
    await tools.clearQueues();
  }
}

/**
 * Once the work has finished: how many of the organisation's events were still unrelayed, and
 * how long the worker's relay took to relay them (polled every POLL_MS, giving up after
 * tools.wait.idleMs without progress).
 */
async function relayCatchUp(db, tools, organization, worker) {
  const unrelayed = async () =>
    (
      await db.query(
        'SELECT count(*)::int AS count FROM events WHERE organization_id = $1 AND relayed_at IS NULL',
        [organization],
      )
    ).rows[0].count;
  const started = Date.now();
  const atFinish = await unrelayed();
  let left = atFinish;
  let changed = Date.now();
  while (left > 0 && Date.now() - changed < tools.wait.idleMs && tools.running(worker.child)) {
    await tools.sleep(POLL_MS);
    const now = await unrelayed();
    if (now !== left) [left, changed] = [now, Date.now()];
  }
  return {
    unrelayedWhenFinished: atFinish,
    caughtUpAfterS: left === 0 ? round((Date.now() - started) / 1000, 2) : null,
    unrelayedAtEnd: left,
  };
}

const countRows = async (db, kind, organization, since) =>
  (
    await db.query(
      `SELECT count(*)::int AS count FROM ${kind.table}
        WHERE organization_id = $1 AND mode = 'live' AND created_at >= $2`,
      [organization, since],
    )
  ).rows[0].count;

/**
 * Polls the finished count (completed or failed) every POLL_MS with a CPU snapshot each time,
 * until all `total` finished, nothing changed for tools.wait.idleMs, or tools.wait.maxMs passed.
 */
async function follow(db, tools, kind, organization, since, total, worker) {
  const samples = [];
  const started = Date.now();
  let changed = Date.now();
  for (;;) {
    if (!tools.running(worker.child))
      throw new Error(
        `the worker exited (${worker.child.signalCode ?? `exit ${worker.child.exitCode}`}):\n${tools.logTail(worker.child)}`,
      );
    const {
      rows: [{ finished }],
    } = await db.query(
      `SELECT count(*)::int AS finished FROM ${kind.table}
        WHERE organization_id = $1 AND mode = 'live' AND created_at >= $2
          AND status IN ('completed', 'failed')`,
      [organization, since],
    );
    const snapshot = tools.cpuSnapshot({ worker: worker.child.pid, api: tools.apiPid() });
    if (samples.length === 0 || finished !== samples.at(-1).finished) changed = Date.now();
    samples.push({ finished, snapshot });
    if (finished >= total) return samples;
    if (Date.now() - changed > tools.wait.idleMs || Date.now() - started > tools.wait.maxMs)
      return samples;
    await tools.sleep(POLL_MS);
  }
}

/**
 * The steady part of a drain, from STEADY[0] to STEADY[1] of the backlog finished: the rate from
 * the rows' completed_at (exact), the worker's CPU from the first samples past each mark.
 */
function steadyWindow(tools, finishedAt, samples, total) {
  const [low, high] = STEADY.map((share) => Math.floor(share * total));
  if (finishedAt.length <= high) return null;
  const from = samples.find((s) => s.finished >= low);
  const to = samples.find((s) => s.finished >= high);
  const spanMs = finishedAt[high] - finishedAt[low];
  return {
    items: high - low,
    spanS: round(spanMs / 1000, 2),
    perS: spanMs > 0 ? round(((high - low) * 1000) / spanMs) : null,
    ...(from && to && to !== from ? cpuOver(tools, from, to) : {}),
  };
}

/** The worker's CPU between two samples: ms per finished item and the machine's split. */
function cpuOver(tools, from, to) {
  const between = tools.cpuBetween(from.snapshot, to.snapshot);
  const items = to.finished - from.finished;
  return {
    msPerItem:
      between.cpuMs.worker === null || items <= 0
        ? null
        : Number((between.cpuMs.worker / items).toFixed(3)),
    workerPercentOfOneCore: between.machine?.workerPct ?? null,
    machine: between.machine,
  };
}

const pick = (object, keys) => Object.fromEntries(keys.map((key) => [key, object?.[key] ?? null]));

export function analysesWorkerLines(r) {
  const lines = [];
  const s = r.settings;
  const fmt = (n, digits = 1) =>
    n === null || n === undefined
      ? '-'
      : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  if (s)
    lines.push(
      `Analyses through one worker (SIMULATED_STEP_MS=0, WORKER_CONCURRENCY=${s.workerEnv.WORKER_CONCURRENCY}): a backlog submitted while no worker ran, then drained;`,
      `steady = from ${STEADY[0] * 100} % to ${STEADY[1] * 100} % of the backlog finished (rows' completed_at); CPU = the worker process, /proc.`,
    );
  for (const [name, d] of [
    ['analyses', r.analyses],
    ['sessions', r.sessions],
  ]) {
    if (!d) continue;
    const statuses = Object.entries(d.statuses)
      .map(([status, n]) => `${n.toLocaleString('en')} ${status}`)
      .join(', ');
    lines.push(
      `  ${name.padEnd(9)} ${d.submitted.toLocaleString('en')} (${statuses}); worker ready in ${fmt(d.workerStartupS)} s; from then, first relay pass ${fmt(d.firstRelayedAfterS, 2)} s, first finished ${fmt(d.firstFinishedAfterS, 2)} s`,
      `            steady ${fmt(d.steady?.perS)}/s (${d.steady?.items ?? '-'} in ${fmt(d.steady?.spanS, 2)} s), worker CPU ${fmt(d.steady?.msPerItem, 2)} ms each (${d.steady?.workerPercentOfOneCore ?? '-'} % of one core, PostgreSQL + Redis ${d.steady?.machine?.databasesPct ?? '-'} %)`,
      `            first to last ${fmt(d.firstToLast.perS)}/s (${d.firstToLast.items} in ${fmt(d.firstToLast.spanS, 2)} s), ${fmt(d.firstToLast.workerCpuMsPerItem, 2)} ms CPU each; ${fmt(d.stateChangesPerItem, 2)} state changes (events) each`,
    );
    if (d.relay)
      lines.push(
        `            outbox: ${d.relay.unrelayedWhenFinished.toLocaleString('en')} events still unrelayed when the last one finished; relayed ${d.relay.caughtUpAfterS === null ? `NOT all (${d.relay.unrelayedAtEnd} left)` : `${fmt(d.relay.caughtUpAfterS, 2)} s later`}; all-in, ready → relay caught up: ${fmt(d.allInCpuMsPerItem, 2)} ms CPU each`,
      );
  }
  if (r.analysesPerSession)
    lines.push(
      `  analyses ÷ sessions: ${fmt(r.analysesPerSession.items, 2)}× the items/s, ${fmt(r.analysesPerSession.stateChanges, 2)}× the state changes/s`,
    );
  if (r.problems?.length > 0) lines.push(`  PROBLEMS: ${r.problems.join('; ')}`);
  return lines;
}

// ------------------------------------------------------------------ analyses-latency

export async function analysesLatencyPhase(ctx, tools, settings, result) {
  const { api, db, writeHeaders } = ctx;
  const problems = [];
  const organization = tools.organizationUuid;
  const total = settings.pacedRate * settings.pacedDuration;
  result.settings = {
    submitsPerS: settings.pacedRate,
    durationS: settings.pacedDuration,
    workerEnv: { SIMULATED_STEP_MS: 0, WORKER_CONCURRENCY: tools.workerConcurrency },
  };
  result.problems = problems;
  await api.ensure('analyses-latency');
  await tools.quietOutbox();
  await tools.endLeftovers(new Date());
  const worker = await tools.startWorker('worker-latency');
  try {
    await tools.quietMachine();
    tools.log(
      `analysis latency: ${settings.pacedRate} quick_scans/s for ${settings.pacedDuration} s (paced), one worker running …`,
    );
    const since = new Date();
    const client = new tools.RawClient(api.base, 10);
    const before = tools.cpuSnapshot({ worker: worker.child.pid, api: api.pid });
    let submits;
    try {
      submits = await tools.paced(
        {
          base: api.base,
          method: 'POST',
          path: KINDS.analyses.path,
          headers: writeHeaders,
          body: tools.bodies.analysis,
        },
        { rate: settings.pacedRate, duration: settings.pacedDuration, client },
      );
    } finally {
      client.destroy();
    }
    if (submits.ok < total)
      problems.push(
        `${total - submits.ok} of ${total} submits failed (${submits.failures.non2xx} non-2xx, ${submits.failures.errors} errors; codes ${JSON.stringify(submits.failures.statusCodes)})`,
      );
    const submitted = await countRows(db, KINDS.analyses, organization, since);
    const samples = await follow(db, tools, KINDS.analyses, organization, since, submitted, worker);
    const cpu = tools.cpuBetween(before, samples.at(-1).snapshot);

    const { rows } = await db.query(
      `SELECT id, status, created_at, started_at, completed_at FROM analyses
        WHERE organization_id = $1 AND mode = 'live' AND created_at >= $2`,
      [organization, since],
    );
    const { rows: events } = await db.query(
      `SELECT type, data->>'analysis_id' AS analysis_id, relayed_at FROM events
        WHERE organization_id = $1 AND created_at >= $2
          AND type IN ('analysis.created', 'analysis.completed')`,
      [organization, since],
    );
    const relayedAt = (type) =>
      new Map(events.filter((e) => e.type === type).map((e) => [e.analysis_id, e.relayed_at]));
    const [createdRelayed, completedRelayed] = [
      relayedAt('analysis.created'),
      relayedAt('analysis.completed'),
    ];
    const completedEvents = events.filter((e) => e.type === 'analysis.completed').length;
    const completed = rows.filter((row) => row.status === 'completed');
    if (completed.length < rows.length)
      problems.push(`${rows.length - completed.length} of ${rows.length} analyses not completed`);
    if (completedEvents !== completed.length)
      problems.push(
        `${completed.length} analyses completed but ${completedEvents} analysis.completed events`,
      );
    const ms = (a, b) => (a && b ? b.getTime() - a.getTime() : NaN);
    const publicIds = new Map(completed.map((row) => [row, tools.publicIdOf('anal', row.id)]));
    const relayed = (map) =>
      completed.map((row) => ms(row.created_at, map.get(publicIds.get(row)) ?? null));
    Object.assign(result, {
      submitted: rows.length,
      completed: completed.length,
      submitLatencyMs: tools.latencySummary(submits.latencies),
      submitsPerS: round(submits.ok / submits.durationS),
      createdToCompletedMs: tools.latencySummary(
        completed.map((row) => ms(row.created_at, row.completed_at)),
      ),
      stagesMs: {
        createdToRelayed: tools.latencySummary(relayed(createdRelayed)),
        createdToStarted: tools.latencySummary(
          completed.map((row) => ms(row.created_at, row.started_at)),
        ),
        startedToCompleted: tools.latencySummary(
          completed.map((row) => ms(row.started_at, row.completed_at)),
        ),
      },
      // What a webhook or live-updates subscriber waits at least: until analysis.completed is
      // relayed (the relay pass's start, so a lower bound of the time it is published).
      createdToCompletedRelayedMs: tools.latencySummary(relayed(completedRelayed)),
      workerCpuMsPerAnalysis:
        cpu.cpuMs.worker === null || completed.length === 0
          ? null
          : Number((cpu.cpuMs.worker / completed.length).toFixed(3)),
      machine: cpu.machine,
    });
  } finally {
    await tools.stopChild(worker.child);
    await tools.clearQueues();
  }
  const apiProblem = await api.problem();
  if (apiProblem) problems.push(`after this phase, ${apiProblem}`);
  if (problems.length > 0) throw new Error(`analyses-latency: ${problems.join('; ')}`);
  return result;
}

export function analysesLatencyLines(r) {
  const lines = [];
  const fmt = (n, digits = 1) =>
    n === null || n === undefined
      ? '-'
      : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const dist = (d) =>
    d
      ? `p50 ${fmt(d.p50)} ms, p95 ${fmt(d.p95)} ms, p99 ${fmt(d.p99)} ms, max ${fmt(d.max)} ms`
      : '-';
  const s = r.settings;
  if (s)
    lines.push(
      `Analysis latency: ${s.submitsPerS} quick_scans/s for ${s.durationS} s (paced, open loop), one worker (SIMULATED_STEP_MS=0, WORKER_CONCURRENCY=${s.workerEnv.WORKER_CONCURRENCY}):`,
    );
  if (r.createdToCompletedMs) {
    const st = r.stagesMs;
    lines.push(
      `  submit → completed (completed_at − created_at, ${r.completed} of ${r.submitted}): ${dist(r.createdToCompletedMs)}`,
      `  stages p50/p99: created → analysis.created relayed ${fmt(st.createdToRelayed.p50)}/${fmt(st.createdToRelayed.p99)} ms, → started ${fmt(st.createdToStarted.p50)}/${fmt(st.createdToStarted.p99)} ms; started → completed ${fmt(st.startedToCompleted.p50)}/${fmt(st.startedToCompleted.p99)} ms`,
      `  submit → analysis.completed relayed (its relay pass began; what a subscriber waits at least): ${dist(r.createdToCompletedRelayedMs)}`,
      `  POST /v1/analysis/targets meanwhile: ${dist(r.submitLatencyMs)} (${fmt(r.submitsPerS)}/s); worker CPU ${fmt(r.workerCpuMsPerAnalysis, 2)} ms per analysis`,
    );
    if (r.machine)
      lines.push(
        `  machine CPU, % of one core: all ${r.machine.busyPct}, worker ${r.machine.workerPct}, api ${r.machine.apiPct}, pg+redis ${r.machine.databasesPct}, generator ${r.machine.generatorPct}, other ${r.machine.otherPct}, steal ${r.machine.stealPct}`,
      );
  }
  if (r.problems?.length > 0) lines.push(`  PROBLEMS: ${r.problems.join('; ')}`);
  return lines;
}
