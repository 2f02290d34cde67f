import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE } from '#queue';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { testRedisPrefix } from './support/scope.js';
import { waitFor } from './support/wait.js';

/**
 * Priority is real: with one analysis at a time and a backlog, an urgent
 * analysis submitted after three low ones is estimated to finish first and
 * is started first. The queue is paused while the backlog builds, so the
 * order the worker takes jobs in is the queue's, not the order they arrived.
 */
let stack: Stack;
let client: TestClient;
let token: string;
let queue: Queue;

beforeAll(async () => {
  stack = await startStack({ env: { WORKER_CONCURRENCY: '1', SIMULATED_STEP_MS: '50' } });
  client = await TestClient.for(stack);
  token = await (await createOrganization(stack, client)).token();
  queue = new Queue(QUEUE.analyses, {
    connection: { url: stack.settings.redisUrl },
    prefix: testRedisPrefix(),
  });
});
afterAll(async () => {
  await queue?.close();
  await stack?.close();
});

async function submit(priority: string): Promise<{ id: string; estimatedCompletion: number }> {
  const response = await client.post('/v1/analysis/targets', {
    token,
    json: { target_type: 'object', analysis_type: 'quick_scan', priority },
  });
  expect(response.status).toBe(201);
  return {
    id: response.body.analysis_id,
    estimatedCompletion: Date.parse(response.body.estimated_completion),
  };
}

describe('analysis priority under a backlog, one analysis at a time', () => {
  it('estimates and starts an urgent analysis before three earlier low ones', async () => {
    // Paused for every worker (the flag is in Redis): jobs are added, none is taken.
    await queue.pause();
    const low = [];
    for (let i = 0; i < 3; i += 1) low.push(await submit('low'));
    const urgent = await submit('urgent');

    // Nothing queued ranks ahead of it, while the last low one waits behind two.
    expect(urgent.estimatedCompletion).toBeLessThan(low[2]!.estimatedCompletion);

    // The outbox relay turns each analysis.created into a job with its priority.
    await waitFor(async () => {
      const { prioritized } = await queue.getJobCounts('prioritized');
      return prioritized === 4 ? true : null;
    });
    await queue.resume();

    const done = await Promise.all(
      [urgent, ...low].map(({ id }) =>
        waitFor(async () => {
          const status = await client.get(`/v1/analysis/${id}`, { token });
          return status.body.status === 'completed' ? status.body : null;
        }),
      ),
    );
    const [urgentStarted, ...lowStarted] = done.map((analysis) => Date.parse(analysis.started_at));
    for (const started of lowStarted) expect(urgentStarted).toBeLessThan(started);
  });
});
