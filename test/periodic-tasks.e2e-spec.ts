import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sql } from '#database';
import { JobProducer, QUEUE } from '#queue';
import { createWorker } from '../apps/worker/src/worker.js';
import { startStack, type Stack } from './support/stack.js';
import { TEST_TIMEOUT_MS, waitFor } from './support/wait.js';

let stack: Stack;

// A Redis namespace of its own: the schedulers below are this file's alone.
beforeAll(async () => {
  stack = await startStack({
    worker: false,
    env: { REDIS_PREFIX: `sas-test-periodic-${randomBytes(3).toString('hex')}` },
  });
});
afterAll(() => stack?.close());

const maintenance = () => stack.api.get(JobProducer).queue(QUEUE.maintenance);

describe('periodic tasks', () => {
  it('are one job scheduler each, made by the worker; schedulers of tasks that went are removed', async () => {
    await maintenance().upsertJobScheduler(
      'retired.task',
      { every: 60_000 },
      { name: 'retired.task' },
    );
    const worker = await createWorker(stack.settings);
    try {
      const schedulers = await maintenance().getJobSchedulers();
      expect(Object.fromEntries(schedulers.map((s) => [s.key, s.every]))).toEqual({
        'events.retention': 3_600_000,
        'audit.retention': 3_600_000,
        'identity.maintain': 3_600_000,
        'idempotency.expire': 3_600_000,
        'sessions.analyst-deadlines': 10_000,
        'sessions.sweep': 60_000,
        'analyses.sweep': 60_000,
        'analyses.analyst-deadlines': 10_000,
        'dowsing.analyst-deadlines': 10_000,
        'reports.sweep': 60_000,
        'sso.metadata-refresh': 3_600_000,
        'sso.domain-verification': 600_000,
        'judging.assign-waiting': 300_000,
      });
    } finally {
      await worker.close();
    }
  });

  it(
    'come back while the worker runs when Redis lost them (restarted empty)',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const worker = await createWorker(stack.settings);
      try {
        const queue = maintenance();
        const before = (await queue.getJobSchedulers()).map((s) => s.key).sort();
        for (const key of before) await queue.removeJobScheduler(key);
        expect(await queue.getJobSchedulers()).toEqual([]);
        // The worker checks every SCHEDULER_CHECK_MS (30 s) and puts back what is missing.
        const restored = await waitFor(async () => {
          const keys = (await queue.getJobSchedulers()).map((s) => s.key).sort();
          return keys.length === before.length ? keys : null;
        });
        expect(restored).toEqual(before);
      } finally {
        await worker.close();
      }
    },
  );

  it('run through the queue: a new scheduler runs its task at once, and a second worker adds none', async () => {
    const sql = stack.api.get(Sql);
    const key = randomUUID();
    const [{ id: organizationId }] = await sql.rows<{ id: string }>(
      'SELECT id FROM organizations LIMIT 1',
      [],
    );
    await sql.rows(
      `INSERT INTO idempotency_keys (organization_id, mode, key, caller, route, request_hash, request_id, expires_at)
       VALUES ($1, 'live', $2, 'api_key:key_x', 'POST /v1/sessions', 'hash', 'req_x', now() - interval '1 second')`,
      [organizationId, key],
    );
    await maintenance().removeJobScheduler('idempotency.expire');
    const [first, second] = [
      await createWorker(stack.settings),
      await createWorker(stack.settings),
    ];
    try {
      await waitFor(async () => {
        const rows = await sql.rows('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
        return rows.length === 0 ? true : null;
      });
      const schedulers = await maintenance().getJobSchedulers();
      expect(schedulers.filter((s) => s.key === 'idempotency.expire')).toHaveLength(1);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
