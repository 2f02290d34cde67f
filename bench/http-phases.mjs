// The HTTP phases of bench/run.mjs, each a phase of its own (see PhaseRunner): read on both
// servers, the read without request limits and with an API key, the fixed-rate runs (paced and
// autocannon's overallRate), create on both servers, then submit and dowsing query on both; ABBA
// order over BENCH_ROUNDS. With BENCH_PROFILE=1, CPU profiles of round 1's read, create, submit
// and dowsing query.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOWSING_QUERY_BODY } from './dowsing.mjs';
import { log, sleep } from './helpers.mjs';
import { RawClient, cannon, paced } from './load.mjs';
import { quietMachine } from './machine.mjs';
import { measured } from './measure.mjs';
import { CONFIG, CREATE_BODY, MAX_ERROR_SHARE, SUBMIT_BODY } from './run-config.mjs';
import { rowLine, rowOf } from './run-report.mjs';

/**
 * The HTTP phases, each on its own (see PhaseRunner): read on both servers, the read without
 * request limits and with an API key, the fixed-rate runs, create on both servers; ABBA order.
 * Returns every measurement, with `failed` set on those of failed phases.
 */
export async function httpPhases(runner, ctx) {
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
