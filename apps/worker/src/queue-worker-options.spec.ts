import 'reflect-metadata';
import { BullModule, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue, Worker, type WorkerOptions } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withQueueWorkerOptions } from './queue-worker-options.js';

/** Stand-ins for BullMQ's classes (no Redis): they keep what @nestjs/bullmq gives them. */
class RecordedQueue {
  constructor(
    readonly name: string,
    readonly opts: Record<string, unknown>,
  ) {}
  on(): this {
    return this;
  }
  async close(): Promise<void> {}
}
class RecordedWorker {
  static readonly made: RecordedWorker[] = [];
  readonly listeners = new Map<string, (...args: unknown[]) => unknown>();
  constructor(
    readonly name: string,
    readonly processor: (...args: unknown[]) => Promise<unknown>,
    readonly opts: WorkerOptions,
  ) {
    RecordedWorker.made.push(this);
  }
  on(event: string, listener: (...args: unknown[]) => unknown): this {
    this.listeners.set(event, listener);
    return this;
  }
  async close(): Promise<void> {}
}

@Injectable()
class Dependency {
  readonly answer = 42;
}

@Processor('events', { concurrency: 20 })
class EventsLikeProcessor extends WorkerHost {
  failures: string[] = [];
  constructor(readonly dependency: Dependency) {
    super();
  }
  async process(): Promise<number> {
    return this.dependency.answer;
  }
  @OnWorkerEvent('failed')
  onFailed(_job: unknown, error: Error): void {
    this.failures.push(error.message);
  }
}

const settings = { queueLocks: { lockDurationMs: 5_000, stalledIntervalMs: 1_000 } };

describe('queue workers', () => {
  let app: INestApplicationContext;

  beforeAll(async () => {
    BullModule.queueClass = RecordedQueue as unknown as typeof Queue;
    BullModule.workerClass = RecordedWorker as unknown as typeof Worker;
    @Module({
      imports: [
        BullModule.forRoot({ connection: {}, prefix: 'test' }),
        BullModule.registerQueue({ name: 'events' }),
      ],
      providers: [Dependency, withQueueWorkerOptions(EventsLikeProcessor, settings)],
    })
    class TestModule {}
    app = await NestFactory.createApplicationContext(TestModule, { logger: false });
  });
  afterAll(async () => {
    await app?.close();
    BullModule.queueClass = Queue;
    BullModule.workerClass = Worker;
  });

  it('take the lock duration and stalled-job check from the settings, besides their own options', () => {
    expect(RecordedWorker.made).toHaveLength(1);
    const [worker] = RecordedWorker.made;
    expect(worker!.name).toBe('events');
    expect(worker!.opts).toMatchObject({
      prefix: 'test',
      concurrency: 20,
      lockDuration: 5_000,
      stalledInterval: 1_000,
    });
  });

  it('keep the processor itself: its token, injection, process and worker event handlers', async () => {
    const processor = app.get(EventsLikeProcessor);
    expect(processor).toBeInstanceOf(EventsLikeProcessor);
    expect(processor.constructor.name).toBe('EventsLikeProcessor');
    expect(processor.worker).toBe(RecordedWorker.made[0]);
    expect(await RecordedWorker.made[0]!.processor()).toBe(42);
    RecordedWorker.made[0]!.listeners.get('failed')!(undefined, new Error('broke'));
    expect(processor.failures).toEqual(['broke']);
  });

  it('refuse a class that is not a processor', () => {
    class NotAProcessor extends WorkerHost {
      async process(): Promise<void> {}
    }
    expect(() => withQueueWorkerOptions(NotAProcessor, settings)).toThrow(/no @Processor/);
  });
});
