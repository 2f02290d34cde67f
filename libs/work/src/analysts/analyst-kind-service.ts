import type { Assignment, PreparedTasking, SubmissionInput, TimedWorkPeople } from '#analysts';
import type { Member } from '#auth';
import type { Tenant } from '#common';
import type { Transaction } from '#database';
import type { VerifiedRecordQuery } from '#history';
import type {
  AnalystKind,
  AnalystWorkRow,
  AnalystWorkTable,
  BlindBrief,
  TimedTasking,
} from './analyst-kind.js';
import type { PeopleCreation } from '../lifecycle/work-creation.js';
import type { AnalystLifecycle } from './analyst-lifecycle.js';

/**
 * A kind of work people can do, as its lib writes it: the kind's
 * description and hooks (AnalystKind), plugged into the lifecycle when it
 * is made, and the entry points its service and controllers call, the same
 * for every kind.
 */
export abstract class AnalystKindService<
  W extends AnalystWorkRow,
  R extends PreparedTasking = PreparedTasking,
> implements AnalystKind<W, R> {
  abstract readonly identity: AnalystKind<W, R>['identity'];
  abstract readonly submittable: readonly string[];
  abstract readonly open: readonly string[];
  abstract readonly completedLog: AnalystKind<W, R>['completedLog'];

  protected constructor(
    protected readonly lifecycle: AnalystLifecycle,
    readonly table: AnalystWorkTable<W>,
  ) {
    lifecycle.plugIn(this);
  }

  abstract brief(work: W): BlindBrief;
  abstract durationMinutes(work: W, request: R): number;
  abstract verified(work: W): VerifiedRecordQuery;
  abstract recordCompletion(
    ...hook: Parameters<AnalystKind<W, R>['recordCompletion']>
  ): Promise<void>;

  /** The engine of new work (AnalystLifecycle.engineFor). */
  engineFor(tenant: Tenant, requested: 'simulated' | 'analyst' | undefined) {
    return this.lifecycle.engineFor(tenant, requested);
  }

  /** Tasks new work in its creating transaction. */
  task(tx: Transaction, tenant: Tenant, work: W, request: R, requestId: string | null) {
    return this.lifecycle.task(this, tx, tenant, work, request, requestId);
  }

  /** An assigned analyst's submission (v2 `POST …/{id}/results`). */
  submit(
    caller: Member | undefined,
    tenant: Tenant,
    publicId: string,
    input: SubmissionInput,
    requestId: string | null,
  ): Promise<Assignment> {
    return this.lifecycle.submit(this, caller, tenant, publicId, input, requestId);
  }

  /** Closes the kind's work past its deadline: completed with what was submitted, else failed. */
  closeOverdue(): Promise<number> {
    return this.lifecycle.closeOverdue(this);
  }
}

/** A kind whose create request also sets how many analysts and the deadline (`duration_minutes`). */
export abstract class TimedAnalystKindService<W extends AnalystWorkRow> extends AnalystKindService<
  W,
  TimedTasking
> {
  /** Minutes the analysts have unless the request says. */
  abstract readonly defaultMinutes: number;

  /** Checks the work's tasking before it is created (AnalystLifecycle.prepareTimed). */
  prepare(tenant: Tenant, people: TimedWorkPeople | undefined, at = ''): Promise<TimedTasking> {
    return this.lifecycle.prepareTimed(tenant, people, this.defaultMinutes, at);
  }

  /** How people take on new work of a kind whose request carries `people` (WorkCreation.people). */
  creating<I extends { people?: TimedWorkPeople | undefined }>(): PeopleCreation<
    W,
    I,
    TimedTasking
  > {
    return {
      requestedEngine: (input) => input.people?.engine,
      prepare: (tenant, input, at) => this.prepare(tenant, input.people, at),
      task: (...tasking) => this.task(...tasking),
    };
  }

  durationMinutes(_work: W, request: TimedTasking): number {
    return request.durationMinutes;
  }
}
