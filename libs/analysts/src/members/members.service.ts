import { Injectable } from '@nestjs/common';
import {
  hashPassword,
  personTarget,
  UsersRepository,
  type MemberRecord,
  type MemberRole,
} from '#auth';
import {
  AppError,
  newUuid,
  parsePublicId,
  scopeCeiling,
  toPublicId,
  type Principal,
} from '#common';
import { AppSettings } from '#config';
import { Sql, type KeysetPage, type PageRequest, type Transaction } from '#database';
import { AuditLog, auditChanges, type AuditAction, type AuditChanges } from '#events';
import { OrganizationsRepository } from '#organizations';
import { INVITATION_TTL_MS, type Analyst, type AnalystStatus, type Invited } from './analyst.js';
import { analystOf } from './analyst-of.js';
import { invitationHash, newInvitationToken } from './invitation-tokens.js';
import { MemberConsequences } from './member-consequences.js';
import {
  checkedEmail,
  checkedName,
  checkedPassword,
  checkedRoles,
  type MemberInput,
} from './member-fields.js';

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/**
 * The people of an organisation (issue 18, docs/analysts.md): members are
 * rows of `users` with roles, managed by the organisation's admins. People
 * belong to the organisation, not to a mode: test-mode credentials read
 * them, but only live-mode ones change them (the routes are `liveOnly`: the
 * auth guard refuses a sandbox key before anything here runs). Every change
 * is an audit event of the person (`person.…`), written with it.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly sql: Sql,
    private readonly users: UsersRepository,
    private readonly organizations: OrganizationsRepository,
    private readonly settings: AppSettings,
    private readonly consequences: MemberConsequences,
  ) {}

  /**
   * A new member: with `password`, a local account that signs in at once;
   * without, an invitation (a one-time link to set a password, kept only as
   * its hash), and an SSO sign-in of the same email lands on this account.
   * An email already in use is a 409 naming `email`: in this organisation,
   * with the member's id to change them instead.
   */
  async create(
    principal: Principal,
    input: MemberInput,
    requestId: string | null,
  ): Promise<Invited<Analyst>> {
    const email = checkedEmail(input.email);
    const name = checkedName(input.name ?? email.split('@')[0]!);
    const roles = checkedRoles(input.roles ?? ['analyst']);
    const password = input.password === undefined ? null : checkedPassword(input.password);
    await this.assertEmailFree(principal.organizationId, email);
    const uuid = newUuid();
    const token = password === null ? newInvitationToken() : null;
    const expiresAt = token === null ? null : new Date(Date.now() + INVITATION_TTL_MS);
    const member = {
      id: uuid,
      email,
      name,
      passwordHash: password === null ? null : await hashPassword(password),
      roles,
      invitationHash: token === null ? null : invitationHash(token),
      invitationExpiresAt: expiresAt,
      // Bounded by the credential that adds them, whichever client they later sign in with.
      scopes: scopeCeiling(principal.scopes),
    };
    try {
      await this.sql.transaction(async (tx) => {
        await this.users.insertMember(tx, principal.organizationId, member);
        await this.audit(tx, principal, 'person.created', uuid, {
          changes: auditChanges({}, { email, name, roles }),
        });
        if (expiresAt !== null) {
          await this.audit(tx, principal, 'person.invited', uuid, {
            details: { invitation_expires_at: expiresAt.toISOString() },
          });
        }
      });
    } catch (error) {
      // Someone took the email between the check and the insert.
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      await this.assertEmailFree(principal.organizationId, email);
      throw error;
    }
    await this.consequences.apply(
      {
        organizationId: principal.organizationId,
        userId: uuid,
        before: { roles: [], disabled: false },
        after: { roles, disabled: false },
      },
      requestId,
    );
    return {
      analyst: await this.read(principal.organizationId, uuid),
      invitationUrl: this.url(token),
    };
  }

  async get(organizationId: string, publicId: string): Promise<Analyst> {
    const uuid = parsePublicId('analyst', publicId);
    const found = uuid === null ? null : await this.find(organizationId, uuid);
    if (!found) throw AppError.notFound('analyst', publicId);
    return found;
  }

  /** The organisation's members, newest first, optionally with a role and in a status. */
  async page(
    organizationId: string,
    filter: { role?: MemberRole | undefined; status?: AnalystStatus | undefined },
    request: PageRequest,
  ): Promise<KeysetPage<Analyst>> {
    const page = await this.users.memberPage(organizationId, filter, request);
    return { ...page, rows: page.rows.map(analystOf) };
  }

  /**
   * Changes `name`, `roles` and `disabled`; absent fields stay. The last
   * active admin of the organisation can be neither demoted nor disabled
   * (409 naming `roles`, or `disabled`), so someone can always run it.
   */
  async update(
    principal: Principal,
    publicId: string,
    input: MemberInput,
    requestId: string | null,
  ): Promise<Analyst> {
    const demoting = input.roles !== undefined && !input.roles.includes('admin');
    return this.change(principal, publicId, input, requestId, demoting ? 'roles' : 'disabled');
  }

  /**
   * Removes a member: the account is disabled and its invitation cleared, but
   * kept, so their assignments, submissions and judged trials stay in the
   * history. Removing someone already removed changes nothing (but is
   * recorded, as every removal asked for is).
   */
  async disable(principal: Principal, publicId: string, requestId: string | null): Promise<void> {
    await this.change(principal, publicId, { disabled: true }, requestId, 'roles', true);
  }

  /**
   * `lastAdminField`: what a refusal to leave the organisation without an
   * admin names. `removal`: a DELETE, recorded as `person.removed`; a PATCH
   * is `person.updated` for its name and roles, and `person.disabled` or
   * `person.enabled` when it turns the account off or on.
   */
  private async change(
    principal: Principal,
    publicId: string,
    input: MemberInput,
    requestId: string | null,
    lastAdminField: string,
    removal = false,
  ): Promise<Analyst> {
    const name = input.name === undefined ? undefined : checkedName(input.name);
    const roles = input.roles === undefined ? undefined : checkedRoles(input.roles);
    const current = await this.get(principal.organizationId, publicId);
    const disabled = input.disabled ?? current.status === 'disabled';
    const nextRoles = roles ?? current.roles;
    // Whoever gives a role lends their own reach with it, never more.
    const gainsRole = nextRoles.some((role) => !current.roles.includes(role));
    const before = await this.sql.transaction(async (tx) => {
      const locked = await this.lockMember(tx, principal.organizationId, current.id);
      if (!locked) throw AppError.notFound('analyst', publicId);
      await this.assertAdminRemains(tx, locked, { roles: nextRoles, disabled }, lastAdminField);
      await this.users.updateMember(tx, principal.organizationId, current.id, {
        name: name ?? null,
        roles: nextRoles,
        disabled,
        scopeCeiling: gainsRole ? scopeCeiling(principal.scopes) : null,
      });
      const earlier = analystOf(locked);
      await this.auditChange(tx, principal, earlier, { name, roles: nextRoles, disabled }, removal);
      return earlier;
    });
    await this.consequences.apply(
      {
        organizationId: principal.organizationId,
        userId: current.id,
        before: { roles: before.roles, disabled: before.status === 'disabled' },
        after: { roles: nextRoles, disabled },
      },
      requestId,
    );
    return this.read(principal.organizationId, current.id);
  }

  /**
   * A new invitation for someone who has not yet set a password or signed in
   * (the first one expired, or was lost): the old link stops working.
   */
  async reinvite(principal: Principal, publicId: string): Promise<Invited<Analyst>> {
    const current = await this.get(principal.organizationId, publicId);
    if (current.status !== 'invited') {
      throw new AppError('CONFLICT', `The analyst ${publicId} is ${current.status}`, {
        field: 'status',
        issue:
          current.status === 'active'
            ? 'already signs in: only people who have not yet set a password or signed in are invited'
            : 'is disabled: enable them first (PATCH with disabled: false)',
      });
    }
    const token = newInvitationToken();
    const invitation = {
      hash: invitationHash(token),
      expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      // The link is handed to the caller: whoever follows it holds no more than the caller.
      scopeCeiling: scopeCeiling(principal.scopes),
    };
    await this.sql.transaction(async (tx) => {
      await this.users.reinviteMember(tx, principal.organizationId, current.id, invitation);
      await this.audit(tx, principal, 'person.invited', current.id, {
        details: { invitation_expires_at: invitation.expiresAt.toISOString(), again: true },
      });
    });
    return {
      analyst: await this.read(principal.organizationId, current.id),
      invitationUrl: this.url(token),
    };
  }

  /**
   * The audit events of a change of `before`: what a PATCH changed of the
   * name and roles (`person.updated`, also when it changed nothing, so every
   * call is on record), and whether it turned the account off or on; a
   * removal is `person.removed` alone.
   */
  private async auditChange(
    tx: Transaction,
    principal: Principal,
    before: Analyst,
    after: { name: string | undefined; roles: MemberRole[]; disabled: boolean },
    removal: boolean,
  ): Promise<void> {
    const wasDisabled = before.status === 'disabled';
    const disabling =
      wasDisabled === after.disabled
        ? null
        : auditChanges({ disabled: wasDisabled }, { disabled: after.disabled });
    if (removal) {
      await this.audit(tx, principal, 'person.removed', before.id, { changes: disabling });
      return;
    }
    const fields = auditChanges(
      { name: before.name, roles: before.roles },
      { name: after.name ?? before.name, roles: after.roles },
    );
    if (fields !== null || disabling === null) {
      await this.audit(tx, principal, 'person.updated', before.id, { changes: fields });
    }
    if (disabling !== null) {
      const action = after.disabled ? 'person.disabled' : 'person.enabled';
      await this.audit(tx, principal, action, before.id, { changes: disabling });
    }
  }

  /** An audit event of the person `userId` by the caller, with their analyst id. */
  private async audit(
    tx: Transaction,
    principal: Principal,
    action: AuditAction,
    userId: string,
    entry: { changes?: AuditChanges | null; details?: Record<string, unknown> },
  ): Promise<void> {
    await AuditLog.record(tx, principal, {
      action,
      actor: principal,
      target: personTarget(userId),
      changes: entry.changes ?? null,
      details: { analyst_id: toPublicId('analyst', userId), ...entry.details },
    });
  }

  private url(token: string | null): string | null {
    return token === null ? null : `${this.settings.publicUrl}/invitations/${token}`;
  }

  private async find(organizationId: string, uuid: string): Promise<Analyst | null> {
    const member = await this.users.findMember(organizationId, uuid);
    return member ? analystOf(member) : null;
  }

  private async read(organizationId: string, uuid: string): Promise<Analyst> {
    return (await this.find(organizationId, uuid))!;
  }

  /** Unique across the service (sign-in finds people by email alone). */
  private async assertEmailFree(organizationId: string, email: string): Promise<void> {
    const existing = await this.users.findByEmailAcrossTenants(email);
    if (!existing) return;
    if (existing.organizationId === organizationId) {
      const id = toPublicId('analyst', existing.id);
      throw new AppError('CONFLICT', `${email} is already a member of this organisation`, {
        field: 'email',
        issue: `already the analyst ${id}: change them with PATCH /v2/analysts/${id}`,
      });
    }
    throw new AppError('CONFLICT', `${email} already has an account`, {
      field: 'email',
      issue: 'belongs to an account of another organisation; an email signs in to one organisation',
    });
  }

  /**
   * The organisation's row is locked first, so two admins demoting each
   * other at once cannot both pass the last-admin check; then the member's.
   */
  private async lockMember(
    tx: Transaction,
    organizationId: string,
    uuid: string,
  ): Promise<MemberRecord | null> {
    await this.organizations.lock(tx, organizationId);
    return this.users.lockMember(tx, organizationId, uuid);
  }

  /** Refuses a change that would leave the organisation without an active admin. */
  private async assertAdminRemains(
    tx: Transaction,
    before: MemberRecord,
    after: { roles: MemberRole[]; disabled: boolean },
    field: string,
  ): Promise<void> {
    const member = analystOf(before);
    const activeAdmin = member.status === 'active' && member.roles.includes('admin');
    const staysAdmin = !after.disabled && after.roles.includes('admin');
    if (!activeAdmin || staysAdmin) return;
    const others = await this.users.countOtherActiveAdmins(member.organizationId, member.id, tx);
    if (others > 0) return;
    throw new AppError('CONFLICT', 'This is the last active admin of the organisation', {
      field,
      issue:
        'the organisation needs at least one active admin: give someone else the admin role first',
    });
  }
}
