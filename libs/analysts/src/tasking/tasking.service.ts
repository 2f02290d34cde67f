import { Injectable } from '@nestjs/common';
import type { Member } from '#auth';
import { AppError, newUuid, parsePublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql, type Transaction } from '#database';
import { EventLog } from '#events';
import { namedAnalysts, OPEN_STATUSES, pickAnalysts } from './analyst-picking.js';
import { assignAnalyst } from './assignment-changes.js';
import { appendAssignmentEvent } from './assignment-events.js';
import { commitTarget, targetReferenceNumber } from './target-commitment.js';
import {
  type Assignment,
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
    tx: Transaction,
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
      await assignAnalyst(tx, this.events, tasking, userId, requestId);
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

  /**
   * Takes the member's submission on a piece of work (one per analyst,
   * replaced by an amendment until the deadline), in the caller's
   * transaction, which holds the work's row. NOT_FOUND for a member with no
   * assignment on it (the blind learn nothing of other work); CONFLICT after
   * the deadline, once the work is closed, or on a declined assignment.
   */
  async submit(
    tx: Transaction,
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
  async submissions(executor: Transaction, taskingId: string): Promise<Assignment[]> {
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
    tx: Transaction,
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
  async forget(tx: Transaction, kind: TaskedKind, workId: string): Promise<void> {
    await tx.query(`DELETE FROM work_taskings WHERE work_kind = $1 AND work_id = $2`, [
      kind,
      workId,
    ]);
  }
}
