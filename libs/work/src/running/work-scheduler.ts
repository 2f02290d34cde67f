import type { OnModuleInit } from '@nestjs/common';
import type { JobsOptions } from 'bullmq';
import { parsePublicId, type IdKind } from '#common';
import type { EventEntity, EventJobs, KnownEventType } from '#events';
import type { JobData, JobName, QueuedJob, QueueName } from '#queue';

/** What a kind of work tells its scheduler: the event that creates it and the job that runs it. */
export interface ScheduledKind<Q extends QueueName, N extends JobName<Q>> {
  /** The event announcing new work; its data names the work's public id as `<idKind>_id`. */
  createdEvent: KnownEventType;
  idKind: IdKind;
  queue: Q;
  jobName: N;
  /** The run job of the work `workId` that `event` created, but for its id. */
  jobOf: (workId: string, event: EventEntity) => { data: JobData<Q, N>; options?: JobsOptions };
}

/**
 * Starts the work of a new piece of work: the relay queues its run with its
 * `created` event. The job id is the work's public id, so an event relayed
 * twice still runs the work once. A kind's scheduler is a subclass that
 * passes its `ScheduledKind`.
 */
export abstract class WorkScheduler<
  Q extends QueueName,
  N extends JobName<Q>,
> implements OnModuleInit {
  protected constructor(
    private readonly kind: ScheduledKind<Q, N>,
    private readonly eventJobs: EventJobs,
  ) {}

  onModuleInit(): void {
    const { createdEvent, idKind, queue, jobName } = this.kind;
    this.eventJobs.on(createdEvent, (event) => {
      const publicId = String(event.data[`${idKind}_id`]);
      const workId = parsePublicId(idKind, publicId);
      if (workId === null) throw new Error(`${createdEvent} event ${event.id} names no ${idKind}`);
      const { data, options } = this.kind.jobOf(workId, event);
      // Each kind's queue and job name fix its data's shape; TypeScript cannot follow Q through the union.
      return { queue, name: jobName, data, options: { ...options, jobId: publicId } } as QueuedJob;
    });
  }
}
