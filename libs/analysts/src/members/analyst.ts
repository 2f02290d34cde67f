import type { IdentitySource, MemberRole } from '#auth';

/**
 * Where a member stands: `invited` until they set a password through their
 * invitation or first sign in through their organisation's SSO; `active`
 * once they can sign in; `disabled` once removed (their history stays).
 */
export const ANALYST_STATUSES = ['active', 'invited', 'disabled'] as const;
export type AnalystStatus = (typeof ANALYST_STATUSES)[number];

/** A member of an organisation as the people API shows them, whatever their roles. */
export interface Analyst {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  roles: MemberRole[];
  identitySource: IdentitySource;
  /** True while an identity provider manages them through SCIM (docs/sso.md, "SCIM provisioning"). */
  scimManaged: boolean;
  status: AnalystStatus;
  /** When the open invitation stops working; null when there is none. */
  invitationExpiresAt: Date | null;
  createdAt: Date;
  lastSignInAt: Date | null;
}

/** A member just created or re-invited, with the one-time link to set their password (never stored). */
export interface Invited<T> {
  analyst: T;
  invitationUrl: string | null;
}

/** How long an invitation link works: a week. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Local passwords: long enough to resist guessing; the upper bound keeps hashing cheap. */
export const MIN_PASSWORD_LENGTH = 12;
