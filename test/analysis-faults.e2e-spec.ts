import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisSweeper } from '#analyses';
import { parsePublicId } from '#common';
import { Sql } from '#database';
import { QUEUE } from '#queue';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { childEnv, spawnWorker } from './support/processes.js';
import { startPrivateRedis, type PrivateRedis } from './support/redis-server.js';
import { testRedisPrefix } from './support/scope.js';
import { startStack, type Stack } from './support/stack.js';
import { DEADLINE_MS, TEST_TIMEOUT_MS, waitFor } from './support/wait.js';

/**
 * Analyses survive the parts of the system dying under them: PostgreSQL
 * holds each analysis and the step it reached, so a worker killed mid-run is
 * resumed where it stopped, and work whose jobs vanished with Redis's data is
 * enqueued again by the worker that notices, or else by the sweeper once it
 * is stale. (Material servers that hang, trickle or
 * redirect to loopback are findings, not faults: test/analyses.e2e-spec.ts.)
 */
let stack: Stack;
let client: TestClient;
let token: string;

interface AnalysisEvent {
  type: string;
  data: { analysis_id?: string; sequence: number; progress?: number };
}

/** The analysis's events, oldest first. */
async function eventsOf(id: string): Promise<AnalysisEvent[]> {
  const events = await client.get('/v2/events?per_page=100', { token });
  return (events.body.data as AnalysisEvent[])
    .filter((event) => event.data.analysis_id === id)
    .reverse();
}

function ofType(events: AnalysisEvent[], type: string): AnalysisEvent[] {
  return events.filter((event) => event.type === type);
}

async function completed(id: string, timeoutMs = DEADLINE_MS) {
  return waitFor(async () => {
    const status = await client.get(`/v1/analysis/${id}`, { token });
    return status.body.status === 'completed' ? status.body : null;
  }, timeoutMs);
}

describe('a worker killed in the middle of an analysis', () => {
  // Steps long enough to catch the analysis between two of them.
  const env = { SIMULATED_STEP_MS: '400' };

  beforeAll(async () => {
    stack = await startStack({ worker: false, env });
    client = await TestClient.for(stack);
    token = await (await createOrganization(stack, client)).token();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it(
    'is resumed at its stored step by another worker: progress never goes back, one start, one completion',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const body = { target_type: 'object', analysis_type: 'deep_dive' };
      const first = await spawnWorker(childEnv(env));
      const progress: number[] = [];
      const poll = async () => {
        const status = await client.get(`/v1/analysis/${id}`, { token });
        progress.push(status.body.progress);
        return status.body;
      };

      await first.ready;
      const submitted = await client.post('/v1/analysis/targets', { token, json: body });
      expect(submitted.status).toBe(201);
      const id: string = submitted.body.analysis_id;
      await waitFor(async () => {
        const status = await poll();
        return status.progress > 0 && status.progress < 100 ? true : null;
      });
      const exit = await first.kill('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      const atKill = await poll();
      expect(atKill).toMatchObject({ status: 'processing' });
      expect(atKill.progress).toBeLessThan(100);

      const second = await spawnWorker(childEnv(env));
      try {
        await second.ready;
        // BullMQ hands the killed worker's job on once its lock (30 s) has run out and a
        // stalled-job check (every 30 s) has seen it: about a minute, longer on a loaded machine.
        const done = await waitFor(
          async () => {
            const status = await poll();
            return status.status === 'completed' ? status : null;
          },
          DEADLINE_MS,
          250,
        );
        expect(done.progress).toBe(100);
        expect(progress).toEqual([...progress].sort((a, b) => a - b));

        const events = await eventsOf(id);
        expect(ofType(events, 'analysis.started')).toHaveLength(1);
        expect(ofType(events, 'analysis.completed')).toHaveLength(1);
        // Each of the eight steps but the last announced once, whichever worker took it.
        const steps = ofType(events, 'analysis.progress_updated');
        expect(steps).toHaveLength(7);
        const sequences = events.map((event) => event.data.sequence);
        expect(sequences).toEqual(sequences.map((_, i) => i + 1));
        const stepProgress = steps.map((event) => event.data.progress!);
        expect(new Set(stepProgress).size).toBe(7);
        expect(stepProgress).toEqual([...stepProgress].sort((a, b) => a - b));

        // Same request, run without interruption: the same results.
        const fresh = await client.post('/v1/analysis/targets', { token, json: body });
        await completed(fresh.body.analysis_id);
        const [resumed, uninterrupted] = await Promise.all(
          [id, fresh.body.analysis_id].map((analysisId) =>
            client.get(`/v1/analysis/${analysisId}/results`, { token }),
          ),
        );
        expect(resumed.body.results).toEqual(uninterrupted.body.results);
      } finally {
        await second.kill('SIGTERM');
      }
    },
  );
});

describe('Redis stopped and restarted empty with analyses waiting in the queue', () => {
  let redis: PrivateRedis;
  let queue: Queue;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startStack({
      env: {
        REDIS_URL: redis.url,
        WORKER_CONCURRENCY: '1',
        SIMULATED_STEP_MS: '20',
        REFERENCE_MATERIAL_TIMEOUT_MS: '100',
      },
    });
    client = await TestClient.for(stack);
    token = await (await createOrganization(stack, client)).token();
    queue = new Queue(QUEUE.analyses, {
      connection: { url: redis.url },
      prefix: testRedisPrefix(),
    });
    // Its connection errors while Redis is away are expected; they must not go unhandled.
    queue.on('error', () => undefined);
  });
  afterAll(async () => {
    await queue?.close();
    await stack?.close();
    await redis?.close();
  });

  async function submit(description: string): Promise<string> {
    const response = await client.post('/v1/analysis/targets', {
      token,
      json: { target_type: 'object', analysis_type: 'quick_scan', description },
    });
    expect(response.status).toBe(201);
    return response.body.analysis_id;
  }

  it(
    'runs the analyses whose jobs vanished at once, each once, when the worker sees Redis came back empty',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      // A backlog: jobs in Redis that no worker takes (the pause flag goes with Redis's data).
      await queue.pause();
      const waiting = [await submit('waiting 1'), await submit('waiting 2')];
      await waitFor(async () => {
        const { prioritized } = await queue.getJobCounts('prioritized');
        return prioritized === waiting.length ? true : null;
      });
      const sweeper = stack.worker!.get(AnalysisSweeper);
      // A wait in the queue is an ordinary backlog: nothing is enqueued again, by either path.
      expect(await sweeper.runOnce()).toBe(0);
      expect(await sweeper.recoverLostJobs()).toBe(0);

      await redis.stop('kill');
      const during = await submit('submitted while Redis was away');
      await redis.start();

      // The worker sees its data marker gone once its connection is back, and enqueues the
      // waiting ones again under their first job's id without the sweep's staleness wait; the
      // one submitted meanwhile is queued by its relayed event as usual.
      for (const id of [...waiting, during]) await completed(id);
      for (const id of [...waiting, during]) {
        const job = await queue.getJob(id);
        expect(await job?.getState(), id).toBe('completed');
        const events = await eventsOf(id);
        expect(ofType(events, 'analysis.started'), id).toHaveLength(1);
        expect(ofType(events, 'analysis.completed'), id).toHaveLength(1);
      }
    },
  );

  it(
    'runs an analysis whose job vanished while Redis kept its data once the sweeper finds it stale',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await queue.pause();
      const id = await submit('job removed');
      await waitFor(async () => ((await queue.getJob(id)) ? true : null));
      // Lost without Redis losing its data (no worker is told): only the periodic sweep sees it.
      await queue.remove(id);
      const sweeper = stack.worker!.get(AnalysisSweeper);
      // A wait shorter than staleAfterMs is an ordinary backlog: nothing is enqueued again.
      expect(await sweeper.runOnce()).toBe(0);
      // As if staleAfterMs (over a minute) had gone by, without waiting for it.
      await stack.api.get(Sql).rows(
        `UPDATE analyses SET updated_at = updated_at - make_interval(secs => $2)
            WHERE id = $1::uuid`,
        [parsePublicId('analysis', id), sweeper.staleAfterMs / 1000 + 1],
      );
      expect(await sweeper.runOnce()).toBe(1);
      await queue.resume();
      await completed(id);
      const events = await eventsOf(id);
      expect(ofType(events, 'analysis.started')).toHaveLength(1);
      expect(ofType(events, 'analysis.completed')).toHaveLength(1);
    },
  );
});
