import { memberStatus, type MemberRecord } from '#auth';
import type { Analyst } from './analyst.js';

/** A member's account (libs/auth's `users`) as the people API shows them. */
export function analystOf(member: MemberRecord): Analyst {
  return {
    id: member.id,
    organizationId: member.organizationId,
    email: member.email,
    name: member.name,
    roles: member.roles,
    identitySource: member.identitySource,
    scimManaged: member.scimManaged,
    status: memberStatus(member),
    invitationExpiresAt: member.invitationExpiresAt,
    createdAt: member.createdAt,
    lastSignInAt: member.lastSignInAt,
  };
}
