import { Injectable } from '@nestjs/common';
import { UsersRepository, type Member } from '#auth';
import { AppError, newUuid, parsePublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import type { Transaction } from '#database';
import { TargetPool } from '../targets/target-pool.js';
import { namedAnalysts } from './analyst-picking.js';
import { AssignmentChanges } from './assignment-changes.js';
import { taskingTenant } from './assignment-events.js';
import { AssignmentSketchesRepository } from './assignment-sketches.repository.js';
import { AssignmentsRepository } from './assignments.repository.js';
import { commitTarget, targetReferenceNumber } from './target-commitment.js';
import {
  type Assignment,
  type SubmissionInput,
  type SubmissionProgress,
  type TaskedKind,
  type Tasking,
  type TaskingRequest,
} from './tasking.js';
import { WorkTaskingsRepository } from './work-taskings.repository.js';

/**
 * Blind tasking (docs/analysts.md), the work's side: gives a piece of work
 * to the organisation's analysts with a committed target, takes their
 * submissions until the deadline, and closes the work. The work kinds
 * (sessions, analyses, dowsing) call it inside their own transactions, so a
 * piece of work and its tasking change together. The analyst's side (their
 * own list, declining) is AssignmentsService.
 */
@Injectable()
export class TaskingService {
  constructor(
    private readonly taskings: WorkTaskingsRepository,
    private readonly assignments: AssignmentsRepository,
    private readonly sketches: AssignmentSketchesRepository,
    private readonly changes: AssignmentChanges,
    private readonly users: UsersRepository,
    private readonly pool: TargetPool,
    private readonly settings: AppSettings,
  ) {}

  /**
   * The engine of a new piece of work: the sandbox is always `simulated`;
   * live work takes the one asked for, else `analyst` when the organisation
   * has an active analyst and `simulated` when it has none.
   */
  async engineFor(
    tenant: Tenant,
    requested: 'simulated' | 'analyst' | undefined,
  ): Promise<'simulated' | 'analyst'> {
    if (tenant.mode === 'test') return 'simulated';
    if (requested !== undefined) return requested;
    return (await this.users.hasActiveAnalyst(tenant.organizationId)) ? 'analyst' : 'simulated';
  }

  /** The stored id of a target of the tenant's pool named by the request, else INVALID_REQUEST naming `field`. */
  async poolTarget(tenant: Tenant, publicId: string, field: string): Promise<string> {
    const id = parsePublicId('target', publicId);
    if (id === null || !(await this.pool.contains(tenant, id))) {
      throw AppError.invalid(field, 'is not a target of your pool (GET /v2/targets)');
    }
    return id;
  }

  /** When work tasked now is due: `duration_minutes` on the (scaled) analyst clock. */
  deadlineFrom(start: Date, durationMinutes: number): Date {
    return new Date(start.getTime() + (durationMinutes * 60_000) / this.settings.analystClockScale);
  }

  /**
   * Tasks the work in the caller's transaction: commits to the target, picks
   * the analysts (those named, then the least loaded, never one person twice)
   * and gives each an assignment with the deadline. 400 naming
   * `analyst_ids[i]` for someone who is not an active analyst here; 409
   * naming `analyst_count` when there are not enough analysts.
   */
  async task(
    tx: Transaction,
    tenant: Tenant,
    request: TaskingRequest,
    requestId: string | null,
  ): Promise<Tasking> {
    const named = await namedAnalysts(this.users, tx, tenant, request);
    const picked = await this.changes.pickAnalysts(
      tx,
      tenant,
      request.analystCount - named.length,
      named,
    );
    if (named.length + picked.length < request.analystCount) {
      const available = named.length + picked.length;
      throw new AppError(
        'CONFLICT',
        `The organisation has ${available} active analyst${available === 1 ? '' : 's'} for this work, and it asks for ${request.analystCount}`,
        {
          field: 'analyst_count',
          issue: `at most ${available}: add analysts (POST /v2/analysts) or ask for fewer`,
        },
      );
    }
    const now = new Date();
    const { commitment, nonce } = commitTarget(request.target);
    const tasking: Tasking = {
      id: newUuid(),
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      kind: request.kind,
      workId: request.workId,
      referenceNumber: targetReferenceNumber(),
      target: request.target,
      commitment,
      nonce,
      targetId: request.targetId,
      modality: request.modality,
      questionType: request.questionType,
      durationMinutes: request.durationMinutes,
      analystCount: request.analystCount,
      judging: request.judging,
      decoyCount: request.decoyCount,
      deadline: this.deadlineFrom(now, request.durationMinutes),
      closedAt: null,
      createdAt: now,
    };
    await this.taskings.insert(tx, tenant, tasking);
    for (const userId of [...named, ...picked]) {
      await this.changes.assign(tx, tasking, userId, requestId);
    }
    return tasking;
  }

  /** The tasking of a piece of work, or null when people are not doing it. */
  taskingOf(tenant: Tenant, kind: TaskedKind, workId: string): Promise<Tasking | null> {
    return this.taskings.findOfWork(tenant, kind, workId);
  }

  /**
   * Takes the member's submission on a piece of work (one per analyst,
   * replaced by an amendment until the deadline), in the caller's
   * transaction, which holds the work's row. NOT_FOUND for a member with no
   * assignment on it (the blind learn nothing of other work); CONFLICT after
   * the deadline, once the work is closed, or on a declined assignment.
   */
  async submit(
    tx: Transaction,
    tenant: Tenant,
    member: Member,
    kind: TaskedKind,
    workId: string,
    workPublicId: string,
    input: SubmissionInput,
    requestId: string | null,
  ): Promise<SubmissionProgress> {
    const assignment = await this.assignments.lockOnWork(tx, tenant, kind, workId, member.userId);
    if (!assignment)
      throw AppError.notFound(kind === 'dowsing' ? 'dowsing query' : kind, workPublicId);
    const { tasking } = assignment;
    const now = new Date();
    if (tasking.closedAt !== null || now >= assignment.deadline) {
      throw new AppError(
        'CONFLICT',
        `The deadline of this work passed at ${assignment.deadline.toISOString()}`,
        {
          field: 'deadline',
          issue: 'submissions and amendments are taken until the deadline',
        },
      );
    }
    if (assignment.status !== 'assigned' && assignment.status !== 'submitted') {
      throw new AppError('CONFLICT', `Your assignment on this work is ${assignment.status}`, {
        field: 'status',
        issue: 'only an assignment you hold takes a submission',
      });
    }
    const amended = assignment.status === 'submitted';
    await this.assignments.recordSubmission(tx, tenant, assignment.id, input, now);
    if (input.sketches !== undefined) {
      await this.sketches.replace(
        tx,
        assignment.id,
        input.sketches.map((sketch) => ({ id: newUuid(), ...sketch })),
      );
    }
    await this.changes.appendEvent(
      tx,
      assignment,
      tasking,
      'submitted',
      'assignment.submitted',
      { submitted_at: now.toISOString(), amended },
      requestId,
    );
    const counts = await this.assignments.progressOn(tenant, tasking.id, tx);
    const updated = await this.assignments.find(tenant, assignment.id, tx);
    return { tasking, assignment: updated!, amended, ...counts };
  }

  /** The submissions on a tasking, in the order the analysts were assigned. */
  submissions(
    tx: Transaction,
    tasking: Pick<Tasking, 'id' | 'organizationId' | 'mode'>,
  ): Promise<Assignment[]> {
    return this.assignments.submissionsOn(taskingTenant(tasking), tasking.id, tx);
  }

  /**
   * Closes a tasking in the caller's transaction when its work ends: the
   * submitted assignments are `completed` (the target is revealed to them);
   * those never submitted are `expired` (deadline) or `cancelled` (the work
   * was cancelled or failed otherwise), each with its event where one exists.
   */
  async close(
    tx: Transaction,
    tasking: Tasking,
    ending: 'completed' | 'expired' | 'cancelled',
    requestId: string | null,
  ): Promise<void> {
    const now = new Date();
    const tenant = taskingTenant(tasking);
    if (!(await this.taskings.close(tx, tenant, tasking.id, now))) return;
    await this.assignments.completeSubmittedOn(tx, tenant, tasking.id, now);
    const unsubmitted = ending === 'cancelled' ? 'cancelled' : 'expired';
    const ended = await this.assignments.endUnsubmittedOn(tx, tenant, tasking.id, unsubmitted, now);
    if (unsubmitted !== 'expired') return;
    for (const assignment of ended) {
      await this.changes.appendEvent(
        tx,
        assignment,
        tasking,
        'expired',
        'assignment.expired',
        { expired_at: now.toISOString() },
        requestId,
      );
    }
  }

  /** Open taskings of a kind whose deadline has passed, oldest first, whoever's they are. */
  overdue(kind: TaskedKind, limit: number): Promise<Tasking[]> {
    return this.taskings.findOverdueAcrossTenants(kind, limit);
  }

  /** The work is deleted: its tasking and assignments go with it. */
  forget(tx: Transaction, tenant: Tenant, kind: TaskedKind, workId: string): Promise<void> {
    return this.taskings.deleteOfWork(tx, tenant, kind, workId);
  }
}
