import { Logger, type BeforeApplicationShutdown, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { WorkerHost } from '@nestjs/bullmq';
import type { Worker } from 'bullmq';
import { AppSettings } from '#config';

/** Left of SHUTDOWN_GRACE_MS for the rest of the shutdown (database pools, Redis) once the queue workers are closed. */
const REST_OF_SHUTDOWN_MS = 2_000;

/**
 * Closes every queue worker within the shutdown grace. A BullMQ Worker's
 * close waits for its active jobs, and can wait forever on a connection that
 * went away and came back (seen after a Redis Cluster restart; BullMQ issue
 * #4656 and its kin): the process would then hang until SHUTDOWN_GRACE_MS
 * kills it, and an in-process application would never finish closing. A
 * worker not closed in time is abandoned: its connections are dropped and
 * its close made a no-op for @nestjs/bullmq's own closing, which comes after
 * this hook. Its active jobs come back when their locks expire (the stalled
 * check of another worker), and resume from what PostgreSQL holds.
 */
export class QueueWorkersShutdown implements BeforeApplicationShutdown {
  private readonly logger = new Logger(QueueWorkersShutdown.name);

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly settings: AppSettings,
    private readonly processors: readonly Type<WorkerHost>[],
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    const withinMs = Math.max(1_000, this.settings.shutdownGraceMs - REST_OF_SHUTDOWN_MS);
    const workers = this.processors.map(
      (processor) => this.moduleRef.get(processor, { strict: false }).worker,
    );
    await Promise.all(workers.map((worker) => this.close(worker, withinMs)));
  }

  private async close(worker: Worker, withinMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const closed = worker.close().then(
      () => true,
      (error: unknown) => {
        this.logger.warn({ err: error, queue: worker.name }, 'queue worker failed to close');
        return true;
      },
    );
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), withinMs);
    });
    const inTime = await Promise.race([closed, late]);
    clearTimeout(timer);
    if (inTime) return;
    this.logger.warn(
      { queue: worker.name, withinMs },
      'queue worker did not close in time; its connections are dropped and its active jobs return to the queue when their locks expire',
    );
    // @nestjs/bullmq closes every worker after this hook; this one would wait again forever.
    Object.defineProperty(worker, 'close', { value: () => Promise.resolve() });
    // Waits for the connections' end, which may never come: not awaited.
    worker.disconnect().catch(() => undefined);
  }
}
