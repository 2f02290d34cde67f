// The framework's floor: what Nest on Express (with Nest's own adapter and with the API's), and
// Nest on Fastify, cost per request before the API does any work of its own, against plain
// node:http answering the same read, in one run. The API's adapter comes from dist/: build first
// (`npm run bench:framework` does).
//
//   node bench/framework-floor.mjs
//   BENCH_DURATION=4 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50 node bench/framework-floor.mjs
//
// The four servers (bench/framework-floor-server.mjs, one child process each) answer
// GET /v1/sessions/{session_id} alike with no I/O: a request-id middleware, an async guard setting
// the five request-limit headers, a handler returning a v1 status body. Each round measures every
// server for BENCH_DURATION s after a 1 s warm-up (autocannon, BENCH_CONNECTIONS connections), in
// an order that rotates from round to round; a server's figure is its median over the rounds.
// Reported: requests/s, the server's CPU per request (user + system from /proc) and, per Nest
// server, the CPU it adds to node:http's per request. That difference is the least the API's
// read can cost more than bench/reference-server.mjs, which is plain node:http too: set against
// the reference's CPU per read in `npm run bench`, it bounds the read ratio that framework allows.
//
// No database or Redis. Results: bench/results/framework/<run>-<phase>.json, <run>-run.json and
// latest.json (bench/phases.mjs), the servers' output beside them. Exit code 1 when a phase failed.

import { join } from 'node:path';
import autocannon from 'autocannon';
import { cpuMs, freePort } from './machine.mjs';
import { PhaseRunner } from './phases.mjs';
import { ROOT, startNode, stopAll, waitReady } from './services.mjs';
import { median, wholeNumber } from './settings.mjs';

const RESULTS = join(ROOT, 'bench', 'results', 'framework');
const CONFIG = {
  duration: wholeNumber('BENCH_DURATION', 4),
  rounds: wholeNumber('BENCH_ROUNDS', 3),
  connections: wholeNumber('BENCH_CONNECTIONS', 50),
};
const KINDS = ['node', 'nest-express', 'nest-express-api', 'nest-fastify'];
const PATH = '/v1/sessions/sess_01jh2x7v4ke8rbk3a8y0v0d7qz';
const HEADERS = { authorization: 'Bearer floor' };

const log = (line) => process.stdout.write(`[framework] ${line}\n`);

async function startServers() {
  const servers = {};
  for (const kind of KINDS) {
    const port = await freePort();
    const child = startNode(
      kind,
      ['bench/framework-floor-server.mjs', kind, String(port)],
      { NODE_ENV: 'production' },
      { logDir: RESULTS },
    );
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}${PATH}`, child, 60_000, async () => {
      const response = await fetch(`${base}${PATH}`, { headers: HEADERS });
      const body = await response.text();
      return response.ok || `HTTP ${response.status} ${body.slice(0, 200)}`;
    });
    servers[kind] = { base, child };
  }
  return servers;
}

/** Every server gives the same status, body and limit headers, or the comparison means nothing. */
async function checkParity(servers) {
  const answers = {};
  for (const [kind, { base }] of Object.entries(servers)) {
    const response = await fetch(`${base}${PATH}`, { headers: HEADERS });
    answers[kind] = {
      status: response.status,
      body: await response.text(),
      headers: ['x-request-id', 'ratelimit', 'ratelimit-policy', 'x-ratelimit-remaining'].map(
        (name) => response.headers.get(name),
      ),
    };
  }
  const [first, ...others] = Object.values(answers);
  const same = others.every((answer) => JSON.stringify(answer) === JSON.stringify(first));
  if (!same) throw new Error(`the servers answer differently: ${JSON.stringify(answers, null, 2)}`);
}

async function measure({ base, child }) {
  const url = `${base}${PATH}`;
  const options = { url, connections: CONFIG.connections, headers: HEADERS };
  await autocannon({ ...options, duration: 1 });
  const cpuBefore = cpuMs(child.pid);
  const result = await autocannon({ ...options, duration: CONFIG.duration });
  const cpu = cpuMs(child.pid) - cpuBefore;
  const answered = result['2xx'];
  if (answered === 0 || result.non2xx > 0 || result.errors > 0)
    throw new Error(
      `${result.non2xx} answers that were not 2xx and ${result.errors} errors of ${result.requests.total}`,
    );
  return {
    rps: Math.round(answered / CONFIG.duration),
    cpuUsPerRequest: Math.round((cpu * 1000) / answered),
    p99Ms: result.latency.p99,
  };
}

function summarise(measured) {
  const byKind = Object.fromEntries(
    KINDS.map((kind) => {
      const runs = measured.filter((entry) => entry.kind === kind);
      return [
        kind,
        {
          rounds: runs.length,
          rps: median(runs.map((entry) => entry.rps)),
          cpuUsPerRequest: median(runs.map((entry) => entry.cpuUsPerRequest)),
        },
      ];
    }),
  );
  const node = byKind.node;
  for (const kind of KINDS.slice(1)) {
    const figures = byKind[kind];
    if (!node.rounds || !figures.rounds) continue;
    figures.rpsRatioToNode = Number((figures.rps / node.rps).toFixed(2));
    figures.cpuUsOverNode = figures.cpuUsPerRequest - node.cpuUsPerRequest;
  }
  return byKind;
}

function print(byKind) {
  const lines = [
    '',
    `GET ${PATH.replace(/sess_\w+$/, '{id}')}, no I/O; ${CONFIG.connections} connections, ${CONFIG.duration} s × ${CONFIG.rounds} rounds, medians`,
    'server              req/s   CPU µs/req   ÷ node:http   CPU µs/req over node:http',
  ];
  for (const kind of KINDS) {
    const figures = byKind[kind];
    if (!figures.rounds) continue;
    lines.push(
      [
        kind.padEnd(16),
        figures.rps.toLocaleString('en').padStart(8),
        String(figures.cpuUsPerRequest).padStart(12),
        (figures.rpsRatioToNode === undefined
          ? '—'
          : `${figures.rpsRatioToNode.toFixed(2)}×`
        ).padStart(13),
        (figures.cpuUsOverNode === undefined ? '—' : `+${figures.cpuUsOverNode}`).padStart(27),
      ].join(' '),
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main() {
  const runner = new PhaseRunner({
    dir: RESULTS,
    root: ROOT,
    log,
    header: { settings: CONFIG, node: process.version },
  });
  process.once('SIGINT', () => stopAll().finally(() => process.exit(130)));
  const servers = await runner.run(
    'setup',
    async () => {
      const started = await startServers();
      await checkParity(started);
      return started;
    },
    {
      toJson: (started) => Object.fromEntries(Object.entries(started).map(([k, s]) => [k, s.base])),
      fatal: true,
    },
  );
  const measured = [];
  if (servers) {
    for (let round = 0; round < CONFIG.rounds; round++) {
      const order = KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]);
      for (const kind of order) {
        const result = await runner.run(`${kind}#${round + 1}`, () => measure(servers[kind]), {
          print: (figures) =>
            log(
              `  ${kind}: ${figures.rps.toLocaleString('en')} req/s, ${figures.cpuUsPerRequest} µs CPU/request`,
            ),
        });
        if (result) measured.push({ kind, round: round + 1, ...result });
      }
    }
  }
  const summary = summarise(measured);
  if (measured.length > 0) print(summary);
  runner.finish({ summary });
  await stopAll();
  process.exitCode = runner.failed.length > 0 ? 1 : 0;
}

await main();
