import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';
import { QUEUE, type JobData, type JobName, type QueuedJob, type QueueName } from './queues.js';

/** Typed access to the queues: the job data must match the job name. */
@Injectable()
export class JobProducer {
  private readonly logger = new Logger(JobProducer.name);
  private readonly queues: Record<QueueName, Queue>;

  constructor(
    @InjectQueue(QUEUE.events) events: Queue,
    @InjectQueue(QUEUE.sessions) sessions: Queue,
    @InjectQueue(QUEUE.analyses) analyses: Queue,
    @InjectQueue(QUEUE.reports) reports: Queue,
    @InjectQueue(QUEUE.maintenance) maintenance: Queue,
    @InjectQueue(QUEUE.work) work: Queue,
  ) {
    this.queues = { events, sessions, analyses, reports, maintenance, work };
    // A BullMQ queue without an "error" listener prints its connection errors (Redis gone)
    // to stderr as bare stack traces; they belong in the log. Adding jobs still fails loudly.
    for (const queue of Object.values(this.queues)) {
      queue.on('error', (error) =>
        this.logger.warn({ err: error, queue: queue.name }, 'queue connection error'),
      );
    }
  }

  /** Adds a job; `jobId` makes the add idempotent (a second add with the same id is a no-op). */
  async add<Q extends QueueName, N extends JobName<Q>>(
    queue: Q,
    name: N,
    data: JobData<Q, N>,
    options: JobsOptions & { jobId: string },
  ): Promise<void> {
    await this.queues[queue].add(name, data, options);
  }

  /** Adds jobs of one name in one round trip; each `jobId` makes its add idempotent, as in `add`. */
  async addBulk<Q extends QueueName, N extends JobName<Q>>(
    queue: Q,
    name: N,
    jobs: readonly { data: JobData<Q, N>; options: JobsOptions & { jobId: string } }[],
  ): Promise<void> {
    if (jobs.length === 0) return;
    await this.queues[queue].addBulk(
      jobs.map(({ data, options }) => ({ name, data, opts: options })),
    );
  }

  /** Adds jobs of any queues and names: one round trip per queue, all queues at once. */
  async addAll(jobs: readonly QueuedJob[]): Promise<void> {
    const byQueue = new Map<QueueName, { name: string; data: unknown; opts: JobsOptions }[]>();
    for (const { queue, name, data, options } of jobs) {
      const bulk = byQueue.get(queue) ?? [];
      bulk.push({ name, data, opts: options });
      byQueue.set(queue, bulk);
    }
    await Promise.all([...byQueue].map(([queue, bulk]) => this.queues[queue].addBulk(bulk)));
  }

  /**
   * Whether any of these jobs is still waiting, delayed or running: the queue
   * will reach its work. A finished job, or one Redis does not hold, is not.
   */
  async anyPending(queue: QueueName, jobIds: readonly string[]): Promise<boolean> {
    const states = await Promise.all(jobIds.map((id) => this.queues[queue].getJobState(id)));
    return states.some(
      (state) => state !== 'completed' && state !== 'failed' && state !== 'unknown',
    );
  }

  queue(name: QueueName): Queue {
    return this.queues[name];
  }
}
