import { Injectable } from '@nestjs/common';
import {
  keysetPage,
  rowMapping,
  Sql,
  SqlConditions,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import type { IdentitySource, MemberRole, UserEntity } from './entities/user.entity.js';

const USER = rowMapping<UserEntity, UserColumn>('users', {
  id: 'id',
  organization_id: 'organizationId',
  email: 'email',
  name: 'name',
  password_hash: 'passwordHash',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  disabled_at: 'disabledAt',
  identity_source: 'identitySource',
  sso_connection_id: 'ssoConnectionId',
  groups: 'groups',
  scopes: 'scopes',
  last_sign_in_at: 'lastSignInAt',
  roles: 'roles',
  invitation_hash: 'invitationHash',
  invitation_expires_at: 'invitationExpiresAt',
});

type UserColumn =
  | 'id'
  | 'organization_id'
  | 'email'
  | 'name'
  | 'password_hash'
  | 'created_at'
  | 'updated_at'
  | 'disabled_at'
  | 'identity_source'
  | 'sso_connection_id'
  | 'groups'
  | 'scopes'
  | 'last_sign_in_at'
  | 'roles'
  | 'invitation_hash'
  | 'invitation_expires_at';

type UserRow = Record<UserColumn, unknown>;

/** What a person's access token needs of their account on every request. */
export type UserIdentity = Pick<
  UserEntity,
  'id' | 'organizationId' | 'email' | 'name' | 'roles' | 'disabledAt'
>;

/** What an SSO sign-in writes on the account, every time. */
export interface FederatedSignIn {
  identitySource: Exclude<IdentitySource, 'local'>;
  ssoConnectionId: string;
  groups: string[];
  scopes: string[];
  lastSignInAt: Date;
}

/**
 * Where a member stands: `invited` until they set a password through their
 * invitation or first sign in through SSO; `active` once they can sign in;
 * `disabled` once removed.
 */
export type MemberStatus = 'active' | 'invited' | 'disabled';

/** A member as the people API reads them (never the password hash nor the invitation's). */
export interface MemberRecord {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  roles: MemberRole[];
  identitySource: IdentitySource;
  /** True while an identity provider manages them through SCIM. */
  scimManaged: boolean;
  hasPassword: boolean;
  invitationExpiresAt: Date | null;
  disabledAt: Date | null;
  createdAt: Date;
  lastSignInAt: Date | null;
}

/** A member added through the people API: a local account, or an invitation to set one up. */
export interface NewMember {
  id: string;
  email: string;
  name: string;
  passwordHash: string | null;
  roles: MemberRole[];
  invitationHash: string | null;
  invitationExpiresAt: Date | null;
  /** What their tokens may carry at most (null: unbounded). */
  scopes: string[] | null;
}

/** A change of a member; `scopeCeiling` narrows their scopes (null: leaves them). */
export interface MemberUpdate {
  name: string | null;
  roles: MemberRole[];
  disabled: boolean;
  scopeCeiling: string[] | null;
}

/** An open invitation: whose it is and in which organisation. */
export interface OpenInvitationRecord {
  email: string;
  name: string;
  organizationId: string;
}

const MEMBER_COLUMNS = `id, organization_id, email, name, roles, identity_source,
  scim_provisioned_at IS NOT NULL AS scim_managed, password_hash IS NOT NULL AS has_password, invitation_expires_at, disabled_at,
  created_at, last_sign_in_at`;

interface MemberRow {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  roles: MemberRole[];
  identity_source: IdentitySource;
  scim_managed: boolean;
  has_password: boolean;
  invitation_expires_at: Date | null;
  disabled_at: Date | null;
  created_at: Date;
  last_sign_in_at: Date | null;
}

function memberFromRow(row: MemberRow): MemberRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    name: row.name,
    roles: row.roles,
    identitySource: row.identity_source,
    scimManaged: row.scim_managed,
    hasPassword: row.has_password,
    invitationExpiresAt: row.invitation_expires_at,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    lastSignInAt: row.last_sign_in_at,
  };
}

/** A member's status; `STATUS_SQL` says the same in SQL, for the list's filter. */
export function memberStatus(member: MemberRecord): MemberStatus {
  if (member.disabledAt !== null) return 'disabled';
  return member.hasPassword || member.lastSignInAt !== null ? 'active' : 'invited';
}

const STATUS_SQL: Record<MemberStatus, string> = {
  disabled: 'disabled_at IS NOT NULL',
  invited: 'disabled_at IS NULL AND password_hash IS NULL AND last_sign_in_at IS NULL',
  active: 'disabled_at IS NULL AND (password_hash IS NOT NULL OR last_sign_in_at IS NOT NULL)',
};

/**
 * An invitation works while it has not expired and the member is still
 * `invited`: enabled, without a password, never signed in — someone who
 * signed in through SSO in the meantime no longer needs (nor gets) a local
 * password through it.
 */
const STILL_INVITED = `invitation_expires_at > now() AND disabled_at IS NULL
  AND password_hash IS NULL AND last_sign_in_at IS NULL`;

/**
 * A person's `scopes` narrowed to the ceiling in parameter `ceiling` (null:
 * unchanged). Null `scopes` means unbounded, so the ceiling replaces it.
 */
function boundedScopesSql(ceiling: string): string {
  return `CASE WHEN ${ceiling}::text[] IS NULL THEN scopes
    WHEN scopes IS NULL THEN ${ceiling}::text[]
    ELSE ARRAY(SELECT unnest(scopes) INTERSECT SELECT unnest(${ceiling}::text[]) ORDER BY 1) END`;
}

/**
 * `users`, which only this lib writes: the accounts people sign in with
 * (locally or through SSO), the members of an organisation with their roles
 * (libs/analysts' people API), and who of them can take work. People belong
 * to an organisation in both modes, so methods take `organizationId`; a
 * sign-in, which does not know the organisation yet, finds the account
 * across them (emails are unique across the service).
 */
@Injectable()
export class UsersRepository {
  constructor(private readonly sql: Sql) {}

  // Accounts and sign-in

  async findByIdAcrossTenants(id: string, on: Queryable = this.sql): Promise<UserEntity | null> {
    const [row] = await on.rows<UserRow>(
      `SELECT ${USER.selectList} FROM users WHERE id = $1 LIMIT 1`,
      [id],
    );
    return row ? USER.fromRow(row) : null;
  }

  /** Emails are compared without regard to case (the unique index is on lower(email)). */
  async findByEmailAcrossTenants(
    email: string,
    on: Queryable = this.sql,
  ): Promise<UserEntity | null> {
    const [row] = await on.rows<UserRow>(
      `SELECT ${USER.selectList} FROM users WHERE lower(email) = lower($1)`,
      [email],
    );
    return row ? USER.fromRow(row) : null;
  }

  async find(
    organizationId: string,
    id: string,
    on: Queryable = this.sql,
  ): Promise<UserEntity | null> {
    const [row] = await on.rows<UserRow>(
      `SELECT ${USER.selectList} FROM users WHERE id = $1 AND organization_id = $2 LIMIT 1`,
      [id, organizationId],
    );
    return row ? USER.fromRow(row) : null;
  }

  async findIdentity(
    organizationId: string,
    id: string,
    on: Queryable = this.sql,
  ): Promise<UserIdentity | null> {
    const [row] = await on.rows<{
      id: string;
      organization_id: string;
      email: string;
      name: string;
      roles: MemberRole[];
      disabled_at: Date | null;
    }>(
      `SELECT id, organization_id, email, name, roles, disabled_at FROM users
        WHERE id = $1 AND organization_id = $2 LIMIT 1`,
      [id, organizationId],
    );
    return row
      ? {
          id: row.id,
          organizationId: row.organization_id,
          email: row.email,
          name: row.name,
          roles: row.roles,
          disabledAt: row.disabled_at,
        }
      : null;
  }

  /** An SSO sign-in of an existing account: what the IdP said now, and the name when it gave one. */
  async recordFederatedSignIn(
    tx: Transaction,
    organizationId: string,
    id: string,
    signIn: FederatedSignIn,
    name: string | null,
  ): Promise<void> {
    await tx.query(
      `UPDATE users SET identity_source = $3, sso_connection_id = $4, groups = $5, scopes = $6,
          last_sign_in_at = $7, name = COALESCE($8, name), updated_at = now()
        WHERE id = $1 AND organization_id = $2`,
      [
        id,
        organizationId,
        signIn.identitySource,
        signIn.ssoConnectionId,
        signIn.groups,
        signIn.scopes,
        signIn.lastSignInAt,
        name,
      ],
    );
  }

  /**
   * The account of a first SSO sign-in (JIT), unless a concurrent one created
   * it first: whether this one did.
   */
  async insertFederatedIfAbsent(
    tx: Transaction,
    organizationId: string,
    user: { id: string; email: string; name: string; roles: MemberRole[] },
    signIn: FederatedSignIn,
  ): Promise<boolean> {
    const { rows } = await tx.query(
      `INSERT INTO users (id, organization_id, email, name, password_hash, disabled_at, roles,
          identity_source, sso_connection_id, groups, scopes, last_sign_in_at)
        VALUES ($1, $2, $3, $4, NULL, NULL, $5, $6, $7, $8, $9, $10)
        ON CONFLICT DO NOTHING
        RETURNING id`,
      [
        user.id,
        organizationId,
        user.email,
        user.name,
        user.roles,
        signIn.identitySource,
        signIn.ssoConnectionId,
        signIn.groups,
        signIn.scopes,
        signIn.lastSignInAt,
      ],
    );
    return rows.length === 1;
  }

  /** A deleted SSO connection: its people keep their accounts, no longer linked to it. Their ids. */
  async forgetConnection(
    tx: Transaction,
    organizationId: string,
    connectionId: string,
  ): Promise<string[]> {
    const rows = await tx.rows<{ id: string }>(
      `UPDATE users SET sso_connection_id = NULL, updated_at = now()
        WHERE organization_id = $1 AND sso_connection_id = $2
        RETURNING id`,
      [organizationId, connectionId],
    );
    return rows.map((row) => row.id);
  }

  /** The ids of the people an SSO connection signs in. */
  async peopleOfConnection(organizationId: string, connectionId: string): Promise<string[]> {
    const rows = await this.sql.rows<{ id: string }>(
      `SELECT id FROM users WHERE organization_id = $1 AND sso_connection_id = $2`,
      [organizationId, connectionId],
    );
    return rows.map((row) => row.id);
  }

  /** A local account (the operator's administrator), unless the email is taken. */
  async insertLocalIfAbsent(
    tx: Transaction,
    organizationId: string,
    account: { id: string; email: string; name: string; passwordHash: string },
  ): Promise<void> {
    await tx.query(
      `INSERT INTO users (id, organization_id, email, name, password_hash, disabled_at)
        VALUES ($1, $2, $3, $4, $5, NULL)
        ON CONFLICT DO NOTHING`,
      [account.id, organizationId, account.email, account.name, account.passwordHash],
    );
  }

  /**
   * The operator's administrator as the environment defines it: moved to the
   * operator organisation, with this password, enabled.
   */
  async resetLocalAccountAcrossTenants(
    tx: Transaction,
    id: string,
    organizationId: string,
    passwordHash: string,
  ): Promise<void> {
    await tx.query(
      `UPDATE users SET organization_id = $2, password_hash = $3, disabled_at = NULL,
          updated_at = now()
        WHERE id = $1`,
      [id, organizationId, passwordHash],
    );
  }

  // Members (the people API)

  async insertMember(tx: Transaction, organizationId: string, member: NewMember): Promise<void> {
    await tx.query(
      `INSERT INTO users (id, organization_id, email, name, password_hash, roles,
          invitation_hash, invitation_expires_at, scopes)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        member.id,
        organizationId,
        member.email,
        member.name,
        member.passwordHash,
        member.roles,
        member.invitationHash,
        member.invitationExpiresAt,
        member.scopes,
      ],
    );
  }

  /** The organisation's members, newest first, optionally with a role and in a status. */
  memberPage(
    organizationId: string,
    filter: { role?: MemberRole | undefined; status?: MemberStatus | undefined },
    request: PageRequest,
    on: Queryable = this.sql,
  ): Promise<KeysetPage<MemberRecord>> {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param(organizationId)}`);
    if (filter.role !== undefined) where.and(`${where.param(filter.role)} = ANY (roles)`);
    if (filter.status !== undefined) where.and(STATUS_SQL[filter.status]);
    return keysetPage(
      (text, parameters) => on.rows(text, parameters),
      {
        table: 'users',
        where,
        scope: { organization_id: organizationId },
        readRows: async (idsSql, parameters) =>
          (
            await on.rows<MemberRow>(
              `SELECT ${MEMBER_COLUMNS} FROM users WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map(memberFromRow),
      },
      request,
    );
  }

  async findMember(
    organizationId: string,
    id: string,
    on: Queryable = this.sql,
  ): Promise<MemberRecord | null> {
    const [row] = await on.rows<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM users WHERE id = $1 AND organization_id = $2`,
      [id, organizationId],
    );
    return row ? memberFromRow(row) : null;
  }

  /** As `findMember`, the row locked until `tx` ends. */
  async lockMember(
    tx: Transaction,
    organizationId: string,
    id: string,
  ): Promise<MemberRecord | null> {
    const [row] = await tx.rows<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM users WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
      [id, organizationId],
    );
    return row ? memberFromRow(row) : null;
  }

  /** Active admins of the organisation other than `exceptId`. */
  async countOtherActiveAdmins(
    organizationId: string,
    exceptId: string,
    on: Queryable = this.sql,
  ): Promise<number> {
    const [row] = await on.rows<{ others: number }>(
      `SELECT count(*)::int AS others FROM users
        WHERE organization_id = $1 AND id <> $2 AND 'admin' = ANY (roles)
          AND disabled_at IS NULL AND (password_hash IS NOT NULL OR last_sign_in_at IS NOT NULL)`,
      [organizationId, exceptId],
    );
    return row!.others;
  }

  /**
   * Sets the name (null: kept), roles and whether the member is disabled;
   * disabling keeps an earlier disabling's time and ends any invitation.
   */
  async updateMember(
    tx: Transaction,
    organizationId: string,
    id: string,
    change: MemberUpdate,
  ): Promise<void> {
    await tx.query(
      `UPDATE users SET name = COALESCE($2, name), roles = $3,
          disabled_at = CASE WHEN $4 THEN COALESCE(disabled_at, now()) ELSE NULL END,
          invitation_hash = CASE WHEN $4 THEN NULL ELSE invitation_hash END,
          invitation_expires_at = CASE WHEN $4 THEN NULL ELSE invitation_expires_at END,
          scopes = ${boundedScopesSql('$5')},
          updated_at = now()
        WHERE id = $1 AND organization_id = $6`,
      [id, change.name, change.roles, change.disabled, change.scopeCeiling, organizationId],
    );
  }

  /** A new invitation replaces the open one; `scopeCeiling` narrows the member's scopes. */
  async reinviteMember(
    tx: Transaction,
    organizationId: string,
    id: string,
    invitation: { hash: string; expiresAt: Date; scopeCeiling: string[] | null },
  ): Promise<void> {
    await tx.query(
      `UPDATE users SET invitation_hash = $2, invitation_expires_at = $3,
          scopes = ${boundedScopesSql('$4')}, updated_at = now()
        WHERE id = $1 AND organization_id = $5`,
      [id, invitation.hash, invitation.expiresAt, invitation.scopeCeiling, organizationId],
    );
  }

  /** The open invitation of this token hash, in whichever organisation, or null. */
  async findOpenInvitationAcrossTenants(
    invitationHash: string,
    on: Queryable = this.sql,
  ): Promise<OpenInvitationRecord | null> {
    const [row] = await on.rows<{ email: string; name: string; organization_id: string }>(
      `SELECT email, name, organization_id FROM users
        WHERE invitation_hash = $1 AND ${STILL_INVITED}`,
      [invitationHash],
    );
    return row ? { email: row.email, name: row.name, organizationId: row.organization_id } : null;
  }

  /**
   * Sets the password and ends the invitation, in one statement conditioned
   * on the invitation still being open: the account, for the one call that
   * did; null for any other.
   */
  async acceptInvitationAcrossTenants(
    tx: Transaction,
    invitationHash: string,
    passwordHash: string,
  ): Promise<{ id: string; organizationId: string } | null> {
    const [row] = await tx.rows<{ id: string; organization_id: string }>(
      `UPDATE users SET password_hash = $2, invitation_hash = NULL, invitation_expires_at = NULL,
          updated_at = now()
        WHERE invitation_hash = $1 AND ${STILL_INVITED}
        RETURNING id, organization_id`,
      [invitationHash, passwordHash],
    );
    return row ? { id: row.id, organizationId: row.organization_id } : null;
  }

  // Who can take work (libs/analysts' tasking and judging)

  /** Whether the organisation has an active analyst. */
  async hasActiveAnalyst(organizationId: string, on: Queryable = this.sql): Promise<boolean> {
    const [row] = await on.rows<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM users WHERE organization_id = $1 AND disabled_at IS NULL
                        AND 'analyst' = ANY(roles)) AS found`,
      [organizationId],
    );
    return row!.found;
  }

  /** Those of `ids` who are active analysts of the organisation. */
  async activeAnalystsAmong(
    organizationId: string,
    ids: readonly string[],
    on: Queryable = this.sql,
  ): Promise<string[]> {
    const rows = await on.rows<{ id: string }>(
      `SELECT id FROM users WHERE id = ANY($1) AND organization_id = $2 AND disabled_at IS NULL
          AND 'analyst' = ANY(roles)`,
      [ids, organizationId],
    );
    return rows.map((row) => row.id);
  }

  /** The organisation's active analysts, but none of `except`. */
  async activeAnalystIds(
    organizationId: string,
    except: readonly string[],
    on: Queryable = this.sql,
  ): Promise<string[]> {
    const rows = await on.rows<{ id: string }>(
      `SELECT id FROM users
        WHERE organization_id = $1 AND disabled_at IS NULL AND 'analyst' = ANY(roles)
          AND NOT (id = ANY($2))`,
      [organizationId, except],
    );
    return rows.map((row) => row.id);
  }

  /**
   * The organisation's members who may judge, but none of `except`: the
   * `judge` role, not disabled, not waiting on an invitation.
   */
  async eligibleJudgeIds(
    organizationId: string,
    except: readonly string[],
    on: Queryable = this.sql,
  ): Promise<string[]> {
    const rows = await on.rows<{ id: string }>(
      `SELECT id FROM users
        WHERE organization_id = $1 AND 'judge' = ANY (roles)
          AND disabled_at IS NULL AND invitation_hash IS NULL
          AND NOT (id = ANY($2))`,
      [organizationId, except],
    );
    return rows.map((row) => row.id);
  }
}
