import { Injectable } from '@nestjs/common';
import type { Member } from '#auth';
import { AppError, MODES, parsePublicId, toPublicId, type Tenant } from '#common';
import { Sql, type KeysetPage, type PageRequest } from '#database';
import { AssignmentChanges } from './assignment-changes.js';
import { type AssignmentFilters, AssignmentsRepository } from './assignments.repository.js';
import type { Assignment } from './tasking.js';

export type { AssignmentFilters } from './assignments.repository.js';

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
    private readonly assignments: AssignmentsRepository,
    private readonly changes: AssignmentChanges,
  ) {}

  /** The member's own assignments, newest first (v2 keyset pages). */
  async assignmentsOf(
    member: Member,
    mode: Tenant['mode'],
    filters: AssignmentFilters,
    page: PageRequest,
  ): Promise<KeysetPage<Assignment>> {
    return this.assignments.page(memberTenant(member, mode), member.userId, filters, page);
  }

  /** One of the member's own assignments; anyone else's is NOT_FOUND. */
  async assignmentOf(member: Member, mode: Tenant['mode'], publicId: string): Promise<Assignment> {
    const id = parsePublicId('assignment', publicId);
    const assignment =
      id === null
        ? null
        : await this.assignments.findOwn(memberTenant(member, mode), member.userId, id);
    if (!assignment) throw AppError.notFound('assignment', publicId);
    return assignment;
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
      const status = await this.assignments.lockStatus(
        tx,
        memberTenant(member, mode),
        assignment.id,
      );
      if (status !== 'assigned') {
        throw new AppError('CONFLICT', `Assignment ${publicId} is ${status}`, {
          field: 'status',
          issue:
            'only an assignment not yet submitted can be declined (an amendment replaces a submission)',
        });
      }
      await this.changes.release(tx, assignment, reason, requestId);
    });
    return this.assignmentOf(member, mode, publicId);
  }

  /**
   * Someone who is no longer an analyst here (role taken away, account
   * disabled) gives up every assignment not yet submitted, in either mode;
   * others take them. One transaction of a few statements, however many there
   * are (it runs inside the request that changed the person). Returns how many.
   */
  async releaseOpenAssignments(
    organizationId: string,
    userId: string,
    requestId: string | null,
  ): Promise<number> {
    return this.sql.transaction(async (tx) => {
      let released = 0;
      for (const mode of MODES) {
        released += await this.changes.releaseAll(tx, { organizationId, mode }, userId, requestId);
      }
      return released;
    });
  }
}

/** The tenant of a member's own work: their organisation, in the mode of their token. */
function memberTenant(member: Member, mode: Tenant['mode']): Tenant {
  return { organizationId: member.organizationId, mode };
}

/** The public id of an assignment. */
export function assignmentPublicId(assignment: Pick<Assignment, 'id'>): string {
  return toPublicId('assignment', assignment.id);
}
