import type { IdentitySource, MemberRole } from '#auth';
import { SqlConditions } from '#database';
import type { Analyst, AnalystStatus } from './analyst.js';

/** The columns of `users` the people API reads (never the password hash nor the invitation's). */
export const ANALYST_COLUMNS = `id, organization_id, email, name, roles, identity_source,
  password_hash IS NOT NULL AS has_password, invitation_expires_at, disabled_at,
  created_at, last_sign_in_at`;

export interface AnalystRow {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  roles: MemberRole[];
  identity_source: IdentitySource;
  has_password: boolean;
  invitation_expires_at: Date | null;
  disabled_at: Date | null;
  created_at: Date;
  last_sign_in_at: Date | null;
}

export function analystFromRow(row: AnalystRow): Analyst {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    name: row.name,
    roles: row.roles,
    identitySource: row.identity_source,
    status: statusOf(row),
    invitationExpiresAt: row.invitation_expires_at,
    createdAt: row.created_at,
    lastSignInAt: row.last_sign_in_at,
  };
}

function statusOf(row: AnalystRow): AnalystStatus {
  if (row.disabled_at !== null) return 'disabled';
  return row.has_password || row.last_sign_in_at !== null ? 'active' : 'invited';
}

/** The same statuses as SQL, for the list's `status` filter. */
const STATUS_SQL: Record<AnalystStatus, string> = {
  disabled: 'disabled_at IS NOT NULL',
  invited: 'disabled_at IS NULL AND password_hash IS NULL AND last_sign_in_at IS NULL',
  active: 'disabled_at IS NULL AND (password_hash IS NOT NULL OR last_sign_in_at IS NOT NULL)',
};

/** An organisation's members, optionally with a role and in a status. */
export function analystConditions(
  organizationId: string,
  filter: { role?: MemberRole | undefined; status?: AnalystStatus | undefined },
): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(organizationId)}`);
  if (filter.role !== undefined) where.and(`${where.param(filter.role)} = ANY (roles)`);
  if (filter.status !== undefined) where.and(STATUS_SQL[filter.status]);
  return where;
}
