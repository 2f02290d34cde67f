export { MembersModule } from './members.module.js';
export { MembersService } from './members.service.js';
export {
  InvitationsService,
  type InvitationOutcome,
  type OpenInvitation,
} from './invitations.service.js';
export {
  ANALYST_STATUSES,
  INVITATION_TTL_MS,
  MIN_PASSWORD_LENGTH,
  type Analyst,
  type AnalystStatus,
  type Invited,
} from './analyst.js';
export type { MemberInput } from './member-fields.js';
export { passwordProblem } from './member-fields.js';
export { MemberConsequences, type MemberChange } from './member-consequences.js';
