import { Injectable } from '@nestjs/common';
import type { Member } from '#auth';
import { AppError, parsePublicId, toPublicId, type Tenant } from '#common';
import { Sql, type KeysetPage, keysetPage, type PageRequest, SqlConditions } from '#database';
import { EventLog } from '#events';
import { releaseAllAssignments, releaseAssignment } from './assignment-changes.js';
import type { Assignment, AssignmentStatus, TaskedKind } from './tasking.js';
import {
  type AssignmentRow,
  assignmentFromRow,
  SELECT_ASSIGNMENTS,
  type TaskingRow,
} from './tasking-rows.js';

/** Filters of an analyst's own list of assignments. */
export interface AssignmentFilters {
  status?: AssignmentStatus | undefined;
  kind?: TaskedKind | undefined;
}

/**
 * An analyst's side of blind tasking (docs/analysts.md): their own
 * assignments, read and declined, and what happens to those they still hold
 * when they stop being an analyst here. The work's side (tasking, taking
 * submissions, closing) is TaskingService.
 */
@Injectable()
export class AssignmentsService {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventLog,
  ) {}

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
      await releaseAssignment(tx, this.events, assignment, reason, requestId);
    });
    return this.assignmentOf(member, mode, publicId);
  }

  /**
   * Someone who is no longer an analyst here (role taken away, account
   * disabled) gives up every assignment not yet submitted; others take them.
   * One transaction of a few statements, however many there are (it runs
   * inside the request that changed the person). Returns how many.
   */
  async releaseOpenAssignments(userId: string, requestId: string | null): Promise<number> {
    return this.sql.transaction((tx) => releaseAllAssignments(tx, this.events, userId, requestId));
  }
}

/** The public id of an assignment. */
export function assignmentPublicId(assignment: Pick<Assignment, 'id'>): string {
  return toPublicId('assignment', assignment.id);
}
