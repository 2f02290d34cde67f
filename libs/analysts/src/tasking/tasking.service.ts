import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { Member } from '#auth';
import { AppError, newUuid, parsePublicId, toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql, type KeysetPage, keysetPage, type PageRequest, SqlConditions } from '#database';
import { EventLog } from '#events';
import { namedAnalysts, OPEN_STATUSES, pickAnalysts } from './analyst-picking.js';
import { appendAssignmentEvent } from './assignment-events.js';
import { commitTarget, targetReferenceNumber } from './target-commitment.js';
import {
  type Assignment,
  type AssignmentStatus,
  type SubmissionInput,
  type SubmissionProgress,
  type TaskedKind,
  type Tasking,
  type TaskingRequest,
} from './tasking.js';
import {
  type AssignmentRow,
  assignmentFromRow,
  SELECT_ASSIGNMENTS,
  TASKING_COLUMNS,
  taskingFromRow,
  type TaskingRow,
} from './tasking-rows.js';

/** Filters of an analyst's own list of assignments. */
export interface AssignmentFilters {
  status?: AssignmentStatus | undefined;
  kind?: TaskedKind | undefined;
}

/**
 * Blind tasking (docs/analysts.md): gives a piece of work to the
 * organisation's analysts with a committed target, takes their submissions
 * until the deadline, and closes the work. The work kinds (sessions,
 * analyses, dowsing) call it inside their own transactions, so a piece of
 * work and its tasking change together.
 */
@Injectable()
export class TaskingService {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventLog,
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
    const [row] = await this.sql.rows<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM users WHERE organization_id = $1 AND disabled_at IS NULL
                        AND 'analyst' = ANY(roles)) AS found`,
      [tenant.organizationId],
    );
    return row!.found ? 'analyst' : 'simulated';
  }

  /** The stored id of a target of the tenant's pool named by the request, else INVALID_REQUEST naming `field`. */
  async poolTarget(tenant: Tenant, publicId: string, field: string): Promise<string> {
    const id = parsePublicId('target', publicId);
    const [row] =
      id === null
        ? []
        : await this.sql.rows<{ id: string }>(
            `SELECT id FROM targets WHERE id = $1 AND organization_id = $2 AND mode = $3`,
            [id, tenant.organizationId, tenant.mode],
          );
    if (!row) throw AppError.invalid(field, 'is not a target of your pool (GET /v2/targets)');
    return row.id;
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
    tx: pg.PoolClient,
    tenant: Tenant,
    request: TaskingRequest,
    requestId: string | null,
  ): Promise<Tasking> {
    const named = await namedAnalysts(tx, tenant, request);
    const picked = await pickAnalysts(tx, tenant, request.analystCount - named.length, named);
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
    await tx.query(
      `INSERT INTO work_taskings (id, organization_id, mode, work_kind, work_id,
         target_reference_number, target, target_commitment, target_nonce, target_id, modality,
         question_type, duration_minutes, analyst_count, judging, decoy_count, deadline, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        tasking.id,
        tasking.organizationId,
        tasking.mode,
        tasking.kind,
        tasking.workId,
        tasking.referenceNumber,
        tasking.target,
        tasking.commitment,
        tasking.nonce,
        tasking.targetId,
        tasking.modality,
        tasking.questionType,
        tasking.durationMinutes,
        tasking.analystCount,
        tasking.judging,
        tasking.decoyCount,
        tasking.deadline,
        now,
      ],
    );
    for (const userId of [...named, ...picked]) {
      await this.assign(tx, tasking, userId, requestId);
    }
    return tasking;
  }

  /** The tasking of a piece of work, or null when people are not doing it. */
  async taskingOf(kind: TaskedKind, workId: string): Promise<Tasking | null> {
    const [row] = await this.sql.rows<TaskingRow>(
      `SELECT ${TASKING_COLUMNS} FROM work_taskings t WHERE t.work_kind = $1 AND t.work_id = $2`,
      [kind, workId],
    );
    return row ? taskingFromRow(row) : null;
  }

  /** The member's own assignments, newest first (v2 keyset pages). */
  async assignmentsOf(
    member: Member,
    mode: Tenant['mode'],
    filters: AssignmentFilters,
    page: PageRequest,
  ): Promise<KeysetPage<Assignment>> {
    const where = new SqlConditions();
    where.and(`user_id = ${where.param(member.userId)}`);
    where.and(`mode = ${where.param(mode)}`);
    if (filters.status) where.and(`status = ${where.param(filters.status)}`);
    if (filters.kind) {
      where.and(
        `tasking_id IN (SELECT id FROM work_taskings WHERE work_kind = ${where.param(filters.kind)})`,
      );
    }
    return keysetPage(
      (text, parameters) => this.sql.rows(text, parameters),
      {
        table: 'assignments',
        where,
        scope: { user_id: member.userId, mode },
        readRows: async (idsSql, parameters) =>
          (
            await this.sql.rows<AssignmentRow & TaskingRow>(
              `${SELECT_ASSIGNMENTS} WHERE a.id IN (${idsSql}) ORDER BY a.created_at DESC, a.id DESC`,
              parameters,
            )
          ).map(assignmentFromRow),
      },
      page,
    );
  }

  /** One of the member's own assignments; anyone else's is NOT_FOUND. */
  async assignmentOf(member: Member, mode: Tenant['mode'], publicId: string): Promise<Assignment> {
    const id = parsePublicId('assignment', publicId);
    const [row] =
      id === null
        ? []
        : await this.sql.rows<AssignmentRow & TaskingRow>(
            `${SELECT_ASSIGNMENTS} WHERE a.id = $1 AND a.user_id = $2 AND a.mode = $3`,
            [id, member.userId, mode],
          );
    if (!row) throw AppError.notFound('assignment', publicId);
    return assignmentFromRow(row);
  }

  /**
   * The analyst turns an assignment down before submitting: it is `declined`
   * and another analyst (least loaded, not already on the work) takes the
   * analyst's place with the same deadline, when there is one. When there is
   * none and nobody left on the work has yet to submit, the work is closed at
   * the next deadline sweep (completed with what was submitted, else failed).
   */
  async decline(
    member: Member,
    mode: Tenant['mode'],
    publicId: string,
    reason: string | null,
    requestId: string | null,
  ): Promise<Assignment> {
    const assignment = await this.assignmentOf(member, mode, publicId);
    await this.sql.transaction(async (tx) => {
      const { rows } = await tx.query<{ status: AssignmentStatus }>(
        `SELECT status FROM assignments WHERE id = $1 FOR UPDATE`,
        [assignment.id],
      );
      const status = rows[0]?.status;
      if (status !== 'assigned') {
        throw new AppError('CONFLICT', `Assignment ${publicId} is ${status}`, {
          field: 'status',
          issue:
            'only an assignment not yet submitted can be declined (an amendment replaces a submission)',
        });
      }
      await this.release(tx, assignment, reason, requestId);
    });
    return this.assignmentOf(member, mode, publicId);
  }

  /**
   * Someone who is no longer an analyst here (role taken away, account
   * disabled) gives up every assignment not yet submitted; others take them.
   */
  async releaseOpenAssignments(userId: string, requestId: string | null): Promise<void> {
    const open = await this.sql.rows<AssignmentRow & TaskingRow>(
      `${SELECT_ASSIGNMENTS} WHERE a.user_id = $1 AND a.status = 'assigned' AND t.closed_at IS NULL`,
      [userId],
    );
    for (const row of open) {
      await this.sql.transaction(async (tx) => {
        const { rowCount } = await tx.query(
          `SELECT 1 FROM assignments WHERE id = $1 AND status = 'assigned' FOR UPDATE`,
          [row.a_id],
        );
        if (rowCount) await this.release(tx, assignmentFromRow(row), 'released', requestId);
      });
    }
  }

  /**
   * Takes the member's submission on a piece of work (one per analyst,
   * replaced by an amendment until the deadline), in the caller's
   * transaction, which holds the work's row. NOT_FOUND for a member with no
   * assignment on it (the blind learn nothing of other work); CONFLICT after
   * the deadline, once the work is closed, or on a declined assignment.
   */
  async submit(
    tx: pg.PoolClient,
    member: Member,
    kind: TaskedKind,
    workId: string,
    workPublicId: string,
    input: SubmissionInput,
    requestId: string | null,
  ): Promise<SubmissionProgress> {
    const { rows } = await tx.query<AssignmentRow & TaskingRow>(
      `${SELECT_ASSIGNMENTS} WHERE t.work_kind = $1 AND t.work_id = $2 AND a.user_id = $3
         FOR UPDATE OF a`,
      [kind, workId, member.userId],
    );
    if (!rows[0])
      throw AppError.notFound(kind === 'dowsing' ? 'dowsing query' : kind, workPublicId);
    const assignment = assignmentFromRow(rows[0]);
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
    await tx.query(
      `UPDATE assignments SET status = 'submitted', descriptors = $2, latitude = $3, longitude = $4,
              notes = $5, confidence = $6, submitted_at = $7, updated_at = $7
        WHERE id = $1`,
      [
        assignment.id,
        input.descriptors,
        input.coordinates?.latitude ?? null,
        input.coordinates?.longitude ?? null,
        input.notes,
        input.confidence,
        now,
      ],
    );
    if (input.sketches !== undefined) {
      await tx.query(`DELETE FROM assignment_sketches WHERE assignment_id = $1`, [assignment.id]);
      for (const [position, sketch] of input.sketches.entries()) {
        await tx.query(
          `INSERT INTO assignment_sketches (id, assignment_id, position, content_type, bytes, sha256)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [newUuid(), assignment.id, position, sketch.contentType, sketch.bytes, sketch.sha256],
        );
      }
    }
    await appendAssignmentEvent(
      tx,
      this.events,
      assignment,
      tasking,
      'submitted',
      'assignment.submitted',
      { submitted_at: now.toISOString(), amended },
      requestId,
    );
    const { rows: counts } = await tx.query<{ submitted: number; active: number }>(
      `SELECT count(*) FILTER (WHERE status = 'submitted')::int AS submitted,
              count(*) FILTER (WHERE status IN ${OPEN_STATUSES})::int AS active
         FROM assignments WHERE tasking_id = $1`,
      [tasking.id],
    );
    const [updated] = (
      await tx.query<AssignmentRow & TaskingRow>(`${SELECT_ASSIGNMENTS} WHERE a.id = $1`, [
        assignment.id,
      ])
    ).rows;
    return { tasking, assignment: assignmentFromRow(updated!), amended, ...counts[0]! };
  }

  /** The submissions on a tasking, in the order the analysts were assigned. */
  async submissions(executor: pg.PoolClient, taskingId: string): Promise<Assignment[]> {
    const { rows } = await executor.query<AssignmentRow & TaskingRow>(
      `${SELECT_ASSIGNMENTS} WHERE a.tasking_id = $1 AND a.submitted_at IS NOT NULL
         AND a.status IN ('submitted', 'completed') ORDER BY a.created_at, a.id`,
      [taskingId],
    );
    return rows.map(assignmentFromRow);
  }

  /**
   * Closes a tasking in the caller's transaction when its work ends: the
   * submitted assignments are `completed` (the target is revealed to them);
   * those never submitted are `expired` (deadline) or `cancelled` (the work
   * was cancelled or failed otherwise), each with its event where one exists.
   */
  async close(
    tx: pg.PoolClient,
    tasking: Tasking,
    ending: 'completed' | 'expired' | 'cancelled',
    requestId: string | null,
  ): Promise<void> {
    const now = new Date();
    const closed = await tx.query(
      `UPDATE work_taskings SET closed_at = $2 WHERE id = $1 AND closed_at IS NULL`,
      [tasking.id, now],
    );
    if (!closed.rowCount) return;
    await tx.query(
      `UPDATE assignments SET status = 'completed', updated_at = $2
        WHERE tasking_id = $1 AND status = 'submitted'`,
      [tasking.id, now],
    );
    const unsubmitted = ending === 'cancelled' ? 'cancelled' : 'expired';
    const { rows } = await tx.query<{ id: string; user_id: string; deadline: Date }>(
      `UPDATE assignments SET status = $2, updated_at = $3
        WHERE tasking_id = $1 AND status = 'assigned' RETURNING id, user_id, deadline`,
      [tasking.id, unsubmitted, now],
    );
    if (unsubmitted !== 'expired') return;
    for (const row of rows) {
      await appendAssignmentEvent(
        tx,
        this.events,
        { id: row.id, userId: row.user_id, deadline: row.deadline },
        tasking,
        'expired',
        'assignment.expired',
        { expired_at: now.toISOString() },
        requestId,
      );
    }
  }

  /** Open taskings of a kind whose deadline has passed, oldest first. */
  async overdue(kind: TaskedKind, limit: number): Promise<Tasking[]> {
    const rows = await this.sql.rows<TaskingRow>(
      `SELECT ${TASKING_COLUMNS} FROM work_taskings t
        WHERE t.closed_at IS NULL AND t.deadline <= now() AND t.work_kind = $1
        ORDER BY t.deadline LIMIT $2`,
      [kind, limit],
    );
    return rows.map(taskingFromRow);
  }

  /** The work is deleted: its tasking and assignments go with it (the analysts' trials stay). */
  async forget(tx: pg.PoolClient, kind: TaskedKind, workId: string): Promise<void> {
    await tx.query(`DELETE FROM work_taskings WHERE work_kind = $1 AND work_id = $2`, [
      kind,
      workId,
    ]);
  }

  private async assign(
    tx: pg.PoolClient,
    tasking: Tasking,
    userId: string,
    requestId: string | null,
  ): Promise<void> {
    const id = newUuid();
    const now = new Date();
    await tx.query(
      `INSERT INTO assignments (id, organization_id, mode, tasking_id, user_id, status, deadline, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'assigned', $6, $7, $7)`,
      [id, tasking.organizationId, tasking.mode, tasking.id, userId, tasking.deadline, now],
    );
    await appendAssignmentEvent(
      tx,
      this.events,
      { id, userId, deadline: tasking.deadline },
      tasking,
      'assigned',
      'assignment.created',
      { target_commitment: tasking.commitment, created_at: now.toISOString() },
      requestId,
    );
  }

  /** `declined` (by the analyst, or released), and someone else in their place when anyone is free. */
  private async release(
    tx: pg.PoolClient,
    assignment: Assignment,
    reason: string | null,
    requestId: string | null,
  ): Promise<void> {
    const now = new Date();
    await tx.query(
      `UPDATE assignments SET status = 'declined', declined_at = $2, decline_reason = $3, updated_at = $2
        WHERE id = $1`,
      [assignment.id, now, reason],
    );
    await appendAssignmentEvent(
      tx,
      this.events,
      assignment,
      assignment.tasking,
      'declined',
      'assignment.declined',
      { declined_at: now.toISOString() },
      requestId,
    );
    const { rows } = await tx.query<{ user_id: string }>(
      `SELECT user_id FROM assignments WHERE tasking_id = $1`,
      [assignment.tasking.id],
    );
    const [replacement] = await pickAnalysts(
      tx,
      assignment.tasking,
      1,
      rows.map((row) => row.user_id),
    );
    if (replacement) {
      await this.assign(tx, assignment.tasking, replacement, requestId);
      return;
    }
    // Nobody free to take the place: when everyone still on the work has submitted, or
    // nobody is left, there is nothing more to wait for, and the deadline sweep closes it now.
    const { rows: counts } = await tx.query<{ waiting: number }>(
      `SELECT count(*) FILTER (WHERE status = 'assigned')::int AS waiting
         FROM assignments WHERE tasking_id = $1`,
      [assignment.tasking.id],
    );
    if (counts[0]!.waiting === 0) {
      await tx.query(`UPDATE work_taskings SET deadline = LEAST(deadline, $2) WHERE id = $1`, [
        assignment.tasking.id,
        now,
      ]);
    }
  }
}

/** The public id of an assignment. */
export function assignmentPublicId(assignment: Pick<Assignment, 'id'>): string {
  return toPublicId('assignment', assignment.id);
}
