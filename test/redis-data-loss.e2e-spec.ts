import type { INestApplicationContext } from '@nestjs/common';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisSweeper } from '#analyses';
import type { AppSettings } from '#config';
import { Sql } from '#database';
import { QUEUE, RedisDataLoss, RedisService } from '#queue';
import { ReportRunner } from '#reports';
import { SessionSweeper } from '#sessions';
import { createWorker } from '../apps/worker/src/worker.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startPrivateRedis, type PrivateRedis } from './support/redis-server.js';
import { testRedisPrefix } from './support/scope.js';
import { startStack, type Stack } from './support/stack.js';
import { DEADLINE_MS, TEST_TIMEOUT_MS, waitFor } from './support/wait.js';

/**
 * How workers notice that Redis lost its data (their marker is gone) and put
 * back the work whose job went with it at once, each piece once however many
 * workers notice. A private Redis, flushed to lose its data; the restart
 * itself, with workers as child processes, is in worker-faults.e2e-spec.ts.
 */
let redis: PrivateRedis;
let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;
let queues: Record<'sessions' | 'analyses' | 'reports', Queue>;
const workers: INestApplicationContext[] = [];

beforeAll(async () => {
  redis = await startPrivateRedis();
  // No worker yet: the API accepts work, nothing relays it.
  stack = await startStack({ worker: false, env: { REDIS_URL: redis.url } });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
  const queue = (name: string) => {
    const made = new Queue(name, { connection: { url: redis.url }, prefix: testRedisPrefix() });
    made.on('error', () => undefined);
    return made;
  };
  queues = {
    sessions: queue(QUEUE.sessions),
    analyses: queue(QUEUE.analyses),
    reports: queue(QUEUE.reports),
  };
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close()));
  await Promise.all(Object.values(queues ?? {}).map((queue) => queue.close()));
  await stack?.close();
  await redis?.close();
});

/** Redis loses every key, as when it restarts without persistence. */
async function loseRedisData(): Promise<void> {
  const service = new RedisService(stack.settings as AppSettings);
  try {
    await service.client.flushall();
  } finally {
    await service.onApplicationShutdown();
  }
}

async function createSessions(count: number): Promise<string[]> {
  const created = await client.post('/v1/batch/sessions', {
    token,
    json: {
      sessions: Array.from({ length: count }, (_, i) => ({
        type: 'remote_viewing',
        target: `lost job ${i}`,
      })),
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.sessions.map((s: { session_id: string }) => s.session_id);
}

async function submitAnalysis(priority: string): Promise<string> {
  const submitted = await client.post('/v1/analysis/targets', {
    token,
    json: { target_type: 'object', analysis_type: 'quick_scan', priority },
  });
  expect(submitted.status, submitted.text).toBe(201);
  return submitted.body.analysis_id;
}

async function askForReport(): Promise<string> {
  const asked = await client.post('/v2/reports/generate', {
    token,
    json: { report_type: 'usage', format: 'json', date_from: '2026-01-01', date_to: '2026-12-31' },
  });
  expect(asked.status, asked.text).toBe(202);
  return asked.body.report_id;
}

async function allDone(paths: readonly string[]): Promise<void> {
  await waitFor(
    async () => {
      for (const path of paths) {
        if ((await client.get(path, { token })).body.status !== 'completed') return null;
      }
      return true;
    },
    DEADLINE_MS,
    250,
  );
}

/** Every job the queue holds or has finished, by id. */
async function jobIds(queue: Queue): Promise<string[]> {
  const jobs = await queue.getJobs([
    'completed',
    'failed',
    'active',
    'waiting',
    'delayed',
    'prioritized',
  ]);
  return jobs.map((job) => job.id!);
}

async function eventCounts(type: string, key: string): Promise<Map<string, number>> {
  const rows = await stack.api
    .get(Sql)
    .rows<{ id: string }>(
      `SELECT data->>$3 AS id FROM events WHERE organization_id = $1 AND type = $2`,
      [org.organizationId, type, key],
    );
  const counts = new Map<string, number>();
  for (const { id } of rows) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

describe('workers noticing that Redis lost its data', () => {
  it('tell one of those that look at once, and one again after the next loss', async () => {
    const services = [0, 1].map(() => new RedisService(stack.settings as AppSettings));
    const detectors = services.map(
      (service) => new RedisDataLoss(service, stack.settings as AppSettings),
    );
    const look = () => Promise.all(detectors.map((detector) => detector.markersWereGone()));
    try {
      expect((await look()).filter(Boolean)).toHaveLength(1);
      expect(await look()).toEqual([false, false]);
      await loseRedisData();
      expect((await look()).filter(Boolean)).toHaveLength(1);
      expect(await look()).toEqual([false, false]);
    } finally {
      await Promise.all(services.map((service) => service.onApplicationShutdown()));
    }
  });

  it(
    'enqueue each session, analysis and report whose job was lost once, at once, and every one completes',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const sessions = await createSessions(6);
      const analyses = [await submitAnalysis('low'), await submitAnalysis('urgent')];
      // Its job is added by the API itself, and lost with the rest.
      const report = await askForReport();
      // As if the worker had relayed their creation (and its jobs added them) before Redis
      // lost everything: nothing would ever enqueue them again but the sweeps.
      await stack.api
        .get(Sql)
        .rows(`UPDATE events SET relayed_at = now() WHERE organization_id = $1`, [
          org.organizationId,
        ]);
      await loseRedisData();

      // Two workers start at once and both look: one recovers, the job ids dedupe the rest.
      workers.push(
        ...(await Promise.all([createWorker(stack.settings), createWorker(stack.settings)])),
      );
      await allDone([
        ...sessions.map((id) => `/v1/sessions/${id}`),
        ...analyses.map((id) => `/v1/analysis/${id}`),
        `/v2/reports/${report}`,
      ]);

      // Each under its first job's id (the one its relayed event would have added), once.
      const sessionJobs = await jobIds(queues.sessions);
      for (const id of sessions) {
        expect(sessionJobs.filter((job) => job.startsWith(id))).toEqual([id]);
      }
      const analysisJobs = await jobIds(queues.analyses);
      for (const id of analyses) {
        expect(analysisJobs.filter((job) => job.startsWith(id))).toEqual([id]);
      }
      expect(await jobIds(queues.reports)).toEqual([report]);
      for (const [type, key, ids] of [
        ['session.started', 'session_id', sessions],
        ['session.completed', 'session_id', sessions],
        ['analysis.started', 'analysis_id', analyses],
        ['analysis.completed', 'analysis_id', analyses],
      ] as const) {
        const counts = await eventCounts(type, key);
        for (const id of ids) expect(counts.get(id), `${type} ${id}`).toBe(1);
      }
    },
  );

  it('leave alone work whose job is still in the queue', async () => {
    await Promise.all([queues.sessions.pause(), queues.reports.pause()]);
    try {
      const [session] = await createSessions(1);
      const report = await askForReport();
      await waitFor(async () =>
        (await queues.sessions.getJobState(session!)) === 'waiting' &&
        (await queues.reports.getJobState(report)) === 'waiting'
          ? true
          : null,
      );
      const worker = workers[0]!;
      expect(await worker.get(SessionSweeper).recoverLostJobs()).toBe(0);
      expect(await worker.get(AnalysisSweeper).recoverLostJobs()).toBe(0);
      expect(await worker.get(ReportRunner).recoverLostJobs()).toBe(0);
      await Promise.all([queues.sessions.resume(), queues.reports.resume()]);
      await allDone([`/v1/sessions/${session}`, `/v2/reports/${report}`]);
      expect((await jobIds(queues.sessions)).filter((job) => job.startsWith(session!))).toEqual([
        session,
      ]);
      expect((await jobIds(queues.reports)).filter((job) => job === report)).toEqual([report]);
    } finally {
      await Promise.all([queues.sessions.resume(), queues.reports.resume()]);
    }
  });
});
