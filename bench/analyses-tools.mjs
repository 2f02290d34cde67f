// What bench/analyses.mjs needs of bench/run.mjs's machinery (processes, CPU accounting, the paced
// generator, emptying the outbox and queues), bound to the run's context: passed in as `tools`,
// so analyses.mjs does one job.

import { performance } from 'node:perf_hooks';
import { TypeID } from 'typeid-js';
import { logTail, running, startChild, stopChild, waitFor } from './children.mjs';
import { describeError } from './errors.mjs';
import { log, sleep, uuidOfOrganization } from './helpers.mjs';
import { RawClient, paced } from './load.mjs';
import { freePort, quietMachine } from './machine.mjs';
import { cpuBetween, cpuSnapshot, latencySummary } from './measure.mjs';
import { clearQueues, quietOutbox } from './outbox.mjs';
import { CONFIG, CREATE_BODY, SUBMIT_BODY, WAIT } from './run-config.mjs';

const env = process.env;

/** What bench/analyses.mjs needs of this file's machinery, bound to the run's context. */
export function analysesTools(ctx) {
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
    publicIdOf: (prefix, uuid) => TypeID.fromUUID(prefix, uuid).toString(),
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
