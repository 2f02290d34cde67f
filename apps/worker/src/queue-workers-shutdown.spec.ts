import { randomUUID } from 'node:crypto';
import type { ModuleRef } from '@nestjs/core';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppSettings } from '#config';
import { QueueWorkersShutdown } from './queue-workers-shutdown.js';

const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
const prefix = `sas-test-shutdown-${randomUUID()}`;
const opened: { close(): Promise<unknown> }[] = [];

afterAll(async () => {
  for (const thing of opened) await thing.close().catch(() => undefined);
  const redis = new Redis(connection);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

/** What the shutdown hook reads of the application: the processors' workers and the grace. */
function shutdownOf(worker: Worker, shutdownGraceMs: number): QueueWorkersShutdown {
  const moduleRef = { get: () => ({ worker }) } as unknown as ModuleRef;
  return new QueueWorkersShutdown(moduleRef, { shutdownGraceMs } as AppSettings, [
    class Processor {} as never,
  ]);
}

describe('closing the queue workers at shutdown', () => {
  it('closes an idle worker as BullMQ does', async () => {
    const worker = new Worker('idle', async () => undefined, { connection, prefix });
    await worker.waitUntilReady();
    await shutdownOf(worker, 10_000).beforeApplicationShutdown();
    expect(worker.closing).not.toBeUndefined();
    expect(await worker.isRunning()).toBe(false);
  });

  it('abandons a worker whose job never ends, and the job comes back to another worker', async () => {
    const name = 'stuck';
    const queue = new Queue(name, { connection, prefix });
    opened.push(queue);
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const stuck: Worker = new Worker(
      name,
      () => {
        started();
        return new Promise<unknown>(() => undefined);
      },
      { connection, prefix, lockDuration: 5_000, stalledInterval: 1_000 },
    );
    // Its lock renewals fail once its connections are dropped (the processors log these).
    stuck.on('error', () => undefined);
    const job = await queue.add('work', { n: 1 });
    await running;

    // Graceful close alone would wait for the job forever.
    await shutdownOf(stuck, 3_000).beforeApplicationShutdown();
    // @nestjs/bullmq's own close, after the hook, returns at once.
    await stuck.close();

    const taker = new Worker(name, async (taken) => `done ${taken.data.n}`, {
      connection,
      prefix,
      lockDuration: 5_000,
      stalledInterval: 1_000,
    });
    opened.push(taker);
    await expect
      .poll(async () => (await queue.getJob(job.id!))?.returnvalue, { timeout: 60_000 })
      .toBe('done 1');
  }, 90_000);
});
