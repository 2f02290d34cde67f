import { Injectable } from '@nestjs/common';
import { AccountSignOut, type MemberRole } from '#auth';
import { JudgingService } from '../judging/judging.service.js';
import { AssignmentsService } from '../tasking/assignments.service.js';

/** What a change to a member means for the work: who lost what, who gained what. */
export interface MemberChange {
  organizationId: string;
  userId: string;
  before: { roles: MemberRole[]; disabled: boolean };
  after: { roles: MemberRole[]; disabled: boolean };
}

/**
 * Access and work follow the people: someone disabled (by an admin or SCIM)
 * loses their sessions, refresh tokens and grants at once (AccountSignOut);
 * someone who stops being an analyst (or is disabled) gives their open
 * assignments back so others are picked, and a new judge takes the judging
 * tasks that waited for one. Run after the change is committed, so the
 * tasking and judging see it.
 */
@Injectable()
export class MemberConsequences {
  constructor(
    private readonly assignments: AssignmentsService,
    private readonly judging: JudgingService,
    private readonly signOut: AccountSignOut,
  ) {}

  async apply(change: MemberChange, requestId: string | null): Promise<void> {
    if (!change.before.disabled && change.after.disabled) {
      await this.signOut.signOut(change.userId);
    }
    const wasAnalyst = !change.before.disabled && change.before.roles.includes('analyst');
    const isAnalyst = !change.after.disabled && change.after.roles.includes('analyst');
    const wasJudge = !change.before.disabled && change.before.roles.includes('judge');
    const isJudge = !change.after.disabled && change.after.roles.includes('judge');
    if (wasAnalyst && !isAnalyst) {
      await this.assignments.releaseOpenAssignments(
        change.organizationId,
        change.userId,
        requestId,
      );
    }
    if (!wasJudge && isJudge) await this.judging.assignWaiting(change.organizationId, requestId);
  }
}
