import { Injectable } from '@nestjs/common';
import { parsePrefixedId, type Tenant } from '#common';
import { EventJobs } from '#events';
import { QUEUE, type JobData } from '#queue';
import type { WorkIdentity } from '../lifecycle/work-identity.js';

/** Runs one piece of a plugged-in kind's work from its stored state; a run may repeat or resume. */
export type PluggedRunner = (
  tenant: Tenant,
  workId: string,
  requestId: string | null,
  signal?: AbortSignal,
) => Promise<void>;

/** A kind of work that runs on the shared `work` queue instead of a queue of its own. */
export interface PluggedKind {
  /** Its names: `feature` is the job's `kind`, unique among plugged-in kinds. */
  identity: Pick<WorkIdentity<unknown>, 'feature' | 'idPrefix' | 'eventIdField'>;
  /** The event its creation appends (WorkCreation.createdEvent): the relay starts the work from it. */
  createdEvent: string;
  run: PluggedRunner;
}

/**
 * The worker side of kinds that need no queue of their own: a kind plugs in
 * its runner, and its created event (committed with the work, in the
 * outbox) becomes a `work` job naming it, which the worker's `work`
 * processor hands back to the runner. The job id is the work's public id,
 * so an event relayed twice still runs the work once. Sessions and analyses
 * keep their own queues (their concurrency and priorities are theirs).
 */
@Injectable()
export class PluggedWork {
  private readonly runners = new Map<string, PluggedRunner>();

  constructor(private readonly eventJobs: EventJobs) {}

  plugIn({ identity, createdEvent, run }: PluggedKind): void {
    const name = identity.feature;
    if (this.runners.has(name)) throw new Error(`a kind named ${name} is plugged in`);
    this.runners.set(name, run);
    // A plugged-in kind's events are its own, not the catalogue's.
    this.eventJobs.on(createdEvent as Parameters<EventJobs['on']>[0], (event) => {
      const publicId = String(event.data[identity.eventIdField]);
      const workId = parsePrefixedId(identity.idPrefix, publicId);
      if (workId === null) {
        throw new Error(`${createdEvent} event ${event.id} names no ${name}`);
      }
      return {
        queue: QUEUE.work,
        name: 'run',
        data: {
          kind: name,
          workId,
          organizationId: event.organizationId,
          mode: event.mode,
          requestId: event.requestId,
        },
        options: { jobId: publicId },
      };
    });
  }

  /** Runs the job's work with its kind's runner. */
  run(job: JobData<'work', 'run'>, signal?: AbortSignal): Promise<void> {
    const runner = this.runners.get(job.kind);
    if (!runner) throw new Error(`no kind named ${job.kind} is plugged in`);
    const tenant = { organizationId: job.organizationId, mode: job.mode };
    return runner(tenant, job.workId, job.requestId, signal);
  }
}
