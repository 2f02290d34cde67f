import { Injectable, Logger } from '@nestjs/common';
import {
  type Assignment,
  assignmentPublicId,
  AnalystWork,
  DEFAULT_DECOY_COUNT,
  JudgingService,
  type PreparedTasking,
  type SubmissionInput,
  type TaskedKind,
  TaskingService,
  type Tasking,
  type TimedWorkPeople,
  type WorkPeople,
} from '#analysts';
import type { Member } from '#auth';
import { AppError, parsePublicId, toPublicId, type Mode, type Tenant } from '#common';
import type { Transaction } from '#database';
import { verifiedStatistics } from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { recordFailure } from '../lifecycle/work-failure.js';
import type { AnalystKind, AnalystWorkRow, TimedTasking } from './analyst-kind.js';

/** How many overdue pieces of work one deadline sweep closes, per kind. */
const SWEEP_BATCH = 200;

const DEADLINE_MESSAGE = 'No analyst submitted before the deadline';

/**
 * The lifecycle of work done by people (the `analyst` engine,
 * docs/analysts.md), whatever its kind: the engine a request gets, its
 * tasking checked before the work exists, then given to the analysts with
 * the work; each submission taken with the work's row held, moving it on;
 * completion when every analyst on it has submitted — or at the deadline
 * with at least one submission, else failure with `deadline_exceeded`;
 * cancelling and deleting. Each kind plugs in (`plugIn`) as an AnalystKind.
 */
@Injectable()
export class AnalystLifecycle {
  private readonly logger = new Logger(AnalystLifecycle.name);
  private readonly kinds: AnalystKind<AnalystWorkRow>[] = [];

  constructor(
    private readonly tasking: TaskingService,
    private readonly work: AnalystWork,
    private readonly judging: JudgingService,
    private readonly verified: VerifiedRecords,
    private readonly events: EventLog,
  ) {}

  /** Registers a kind, so the deadline sweep (AnalystDeadlines) closes its work too. */
  plugIn<W extends AnalystWorkRow, R extends PreparedTasking>(kind: AnalystKind<W, R>): void {
    this.kinds.push(kind as unknown as AnalystKind<AnalystWorkRow>);
  }

  /** The kinds plugged in so far. */
  pluggedIn(): readonly AnalystKind<AnalystWorkRow>[] {
    return this.kinds;
  }

  /**
   * The engine of new work, of any kind: the sandbox is always `simulated`;
   * live work takes the one asked for, else `analyst` when the organisation
   * has an active analyst and `simulated` when it has none.
   */
  engineFor(
    tenant: Tenant,
    requested: 'simulated' | 'analyst' | undefined,
  ): Promise<'simulated' | 'analyst'> {
    return this.tasking.engineFor(tenant, requested);
  }

  /**
   * What a request asks of people, checked before the work is created: the
   * pool target it names (400 naming `{at}target_id`), and for judged work
   * enough decoys in the pool (409 naming `decoy_count`).
   */
  async prepare(
    tenant: Tenant,
    analystCount: number,
    people: WorkPeople | undefined,
    at = '',
  ): Promise<PreparedTasking> {
    const prepared: PreparedTasking = {
      analystCount,
      analystIds: people?.analystIds,
      judging: people?.judging ?? false,
      decoyCount: people?.decoyCount ?? DEFAULT_DECOY_COUNT,
      targetId:
        people?.targetId === undefined
          ? null
          : await this.tasking.poolTarget(tenant, people.targetId, `${at}target_id`),
    };
    if (prepared.judging) {
      await this.judging.assertDecoysAvailable(tenant, prepared.decoyCount, prepared.targetId);
    }
    return prepared;
  }

  /** As `prepare`, for work whose request sets the analysts and the deadline (one analyst, `defaultMinutes`, unless it says). */
  async prepareTimed(
    tenant: Tenant,
    people: TimedWorkPeople | undefined,
    defaultMinutes: number,
    at = '',
  ): Promise<TimedTasking> {
    return {
      ...(await this.prepare(tenant, people?.analystCount ?? 1, people, at)),
      durationMinutes: people?.durationMinutes ?? defaultMinutes,
    };
  }

  /** Tasks new work blind in its creating transaction; the kind then records it as tasked. */
  async task<W extends AnalystWorkRow, R extends PreparedTasking>(
    kind: AnalystKind<W, R>,
    tx: Transaction,
    tenant: Tenant,
    work: W,
    request: R,
    requestId: string | null,
  ): Promise<void> {
    const tasking = await this.tasking.task(
      tx,
      tenant,
      {
        ...request,
        kind: kind.identity.tasked,
        workId: work.id,
        workPublicId: toPublicId(kind.identity.tasked, work.id),
        ...kind.brief(work),
        durationMinutes: kind.durationMinutes(work, request),
      },
      requestId,
    );
    await kind.recordTasked?.(tx, tenant, work, tasking, work.eventSequence + 1, requestId);
  }

  /**
   * An assigned analyst's submission (v2 `POST /{work}/{id}/results`),
   * answered in this order: unknown work 404, work of another engine 404 to
   * a person and 409 naming `engine` to any other credential, a caller who
   * is no person 403, no assignment 404. With the work's row held, the kind
   * records the progress; the last submission completes the work in the
   * same transaction. Work that ended meanwhile keeps the submission and
   * moves on no further.
   */
  async submit<W extends AnalystWorkRow, R extends PreparedTasking>(
    kind: AnalystKind<W, R>,
    caller: Member | undefined,
    tenant: Tenant,
    publicId: string,
    input: SubmissionInput,
    requestId: string | null,
  ): Promise<Assignment> {
    const work = await this.workOf(kind, tenant, publicId);
    const member = this.work.submitter(
      { engine: work.engine, noun: kind.identity.noun, publicId },
      caller,
    );
    let assignmentId = null as string | null;
    await kind.table.transitionWithSequence(tenant, work.id, async (tx, sequence) => {
      const progress = await this.tasking.submit(
        tx,
        tenant,
        member,
        kind.identity.tasked,
        work.id,
        publicId,
        input,
        requestId,
      );
      assignmentId = assignmentPublicId(progress.assignment);
      const current = await this.locked(kind, tx, tenant, work.id);
      if (!kind.submittable.includes(current.status)) return false;
      const announced = await kind.recordProgress?.(
        tx,
        tenant,
        current,
        progress,
        sequence,
        requestId,
      );
      const next = announced ? sequence + 1 : sequence;
      if (progress.submitted === progress.active) {
        await this.complete(kind, tx, current, progress.tasking, next, requestId);
      }
      return true;
    });
    // Deleted since it was read: nothing took the submission.
    if (assignmentId === null) throw AppError.notFound(kind.identity.noun, publicId);
    return this.work.assignments.assignmentOf(member, tenant.mode, assignmentId);
  }

  /** Closes the kind's work past its deadline, one transaction each; how many it ended. */
  async closeOverdue<W extends AnalystWorkRow, R extends PreparedTasking>(
    kind: AnalystKind<W, R>,
  ): Promise<number> {
    let closed = 0;
    for (const tasking of await this.tasking.overdue(kind.identity.tasked, SWEEP_BATCH)) {
      const tenant = tenantOf(tasking);
      const ended = await kind.table.transitionWithSequence(
        tenant,
        tasking.workId,
        async (tx, sequence) => {
          const work = await this.locked(kind, tx, tenant, tasking.workId);
          if (!kind.open.includes(work.status)) {
            await this.tasking.close(tx, tasking, 'cancelled', null);
            return false;
          }
          const submitted = await this.tasking.submissions(tx, tasking);
          if (submitted.length > 0) await this.complete(kind, tx, work, tasking, sequence, null);
          else await this.failAtDeadline(kind, tx, work, tasking, sequence);
          return true;
        },
      );
      if (ended) closed += 1;
    }
    return closed;
  }

  /** The work was cancelled: its tasking (if people do it) closes with it. */
  async cancelled(
    kind: TaskedKind,
    tx: Transaction,
    work: AnalystWorkRow,
    requestId: string | null,
  ): Promise<void> {
    if (work.engine !== 'analyst') return;
    const tasking = await this.tasking.taskingOf(tenantOf(work), kind, work.id);
    if (tasking) await this.tasking.close(tx, tasking, 'cancelled', requestId);
  }

  /** Deleted work's tasking goes with it, target and all. */
  forget(kind: TaskedKind, tx: Transaction, tenant: Tenant, workId: string): Promise<void> {
    return this.tasking.forget(tx, tenant, kind, workId);
  }

  /** An analyst's uploaded sketch of the work, as stored. */
  sketch<W extends AnalystWorkRow, R extends PreparedTasking>(
    kind: AnalystKind<W, R>,
    work: W,
    sketchId: string,
  ) {
    return this.work.sketches.ofWork(tenantOf(work), kind.identity.tasked, work.id, sketchId);
  }

  /**
   * The kind writes its results from the combined submissions; then the
   * tasking closes (revealing the target to the analysts) and blind judging
   * opens when the tasking asks for it.
   */
  private async complete<W extends AnalystWorkRow, R extends PreparedTasking>(
    kind: AnalystKind<W, R>,
    tx: Transaction,
    work: W,
    tasking: Tasking,
    sequence: number,
    requestId: string | null,
  ): Promise<void> {
    const tenant = tenantOf(work);
    const brief = kind.brief(work);
    const [inputs, verified] = await Promise.all([
      this.work.inputs(tx, tenant, tasking, brief.modality),
      this.verified.of(tenant, kind.verified(work)),
    ]);
    await kind.recordCompletion(
      tx,
      tenant,
      work,
      { ...inputs, verified: verifiedStatistics(verified) },
      sequence,
      requestId,
    );
    const publicId = toPublicId(kind.identity.tasked, work.id);
    await this.tasking.close(tx, tasking, 'completed', requestId);
    await this.work.judge(
      tx,
      tenant,
      tasking,
      { publicId, modality: brief.modality, target: brief.target },
      requestId,
    );
    this.logger.log(
      { [kind.completedLog.idKey]: publicId, submissions: inputs.submissions.length, requestId },
      kind.completedLog.message,
    );
  }

  private async failAtDeadline<W extends AnalystWorkRow, R extends PreparedTasking>(
    kind: AnalystKind<W, R>,
    tx: Transaction,
    work: W,
    tasking: Tasking,
    sequence: number,
  ): Promise<void> {
    const failure = {
      reason: 'deadline_exceeded',
      message: DEADLINE_MESSAGE,
      failedAt: new Date(),
    };
    await recordFailure(
      tx,
      tenantOf(work),
      { table: kind.table, events: this.events, failedEvent: kind.identity.failedEvent },
      work,
      failure,
      sequence,
      null,
    );
    await this.tasking.close(tx, tasking, 'expired', null);
  }

  private async workOf<W extends AnalystWorkRow, R extends PreparedTasking>(
    kind: AnalystKind<W, R>,
    tenant: Tenant,
    publicId: string,
  ): Promise<W> {
    const id = parsePublicId(kind.identity.tasked, publicId);
    const work = id === null ? null : await kind.table.find(tenant, id);
    if (!work) throw AppError.notFound(kind.identity.noun, publicId);
    return work;
  }

  /** The work whose row the transition holds (it exists: the transition found it). */
  private async locked<W extends AnalystWorkRow, R extends PreparedTasking>(
    kind: AnalystKind<W, R>,
    tx: Transaction,
    tenant: Tenant,
    id: string,
  ): Promise<W> {
    return (await kind.table.find(tenant, id, tx))!;
  }
}

function tenantOf(work: { organizationId: string; mode: Mode }): Tenant {
  return { organizationId: work.organizationId, mode: work.mode };
}
