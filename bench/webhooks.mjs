// The `webhooks` phase of bench/run.mjs (see bench/README.md, "Webhook delivery"): deliveries
// through the worker to bench/webhook-receiver.mjs, a local HTTPS receiver — a backlog's
// throughput, the same receiver hit directly for scale, and the latency under a paced load —
// and `webhookLines`, its figures as text.

import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { rootCertificates } from 'node:tls';
import autocannon from 'autocannon';
import { TypeID } from 'typeid-js';
import { Agent as UndiciAgent, request as undiciRequest } from 'undici';
import { logTail, running, startChild, stopChild } from './children.mjs';
import { describeError } from './errors.mjs';
import { log, request, sleep, uuidOfOrganization, withTimeout } from './helpers.mjs';
import { RawClient, paced } from './load.mjs';
import { NOISE, quietMachine } from './machine.mjs';
import { cpuBetween, cpuSnapshot, latencySummary, round2 } from './measure.mjs';
import { clearQueues, quietOutbox } from './outbox.mjs';
import { CONFIG, CREATE_BODY, RESULTS, WAIT } from './run-config.mjs';
import { createCertificates } from './webhook-receiver.mjs';

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

const DIRECT_S = 5; // length of the direct-POST run

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
export async function webhookPhase(ctx, result) {
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
        uuid: TypeID.fromString(created.json.webhook_id, 'wh').toUUID(),
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

const fmtNumber = (n, digits = 2) =>
  n === null || n === undefined
    ? '-'
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The webhook phase's figures as text; parts a failed phase did not reach are left out. */
export function webhookLines(w) {
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
