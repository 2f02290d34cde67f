import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, toPublicId, type Principal } from '#common';
import { Sql } from '#database';
import { AuditLog, auditChanges, type AuditTarget } from '#events';
import type { IdentitySource, MemberRole, UserEntity } from './entities/user.entity.js';
import { decoyPasswordHash, hashPassword, verifyPassword } from './passwords.js';
import { UsersRepository, type FederatedSignIn } from './users.repository.js';

/** Someone an SSO connection vouched for, with what their groups map to. */
export interface FederatedIdentity {
  organizationId: string;
  source: Exclude<IdentitySource, 'local'>;
  connectionId: string;
  email: string;
  name: string | null;
  groups: string[];
  scopes: string[];
  /** Create the account at the first sign-in (the connection's jit_provisioning). */
  provision: boolean;
  /** The roles of an account created at the first sign-in (the connection's jit_roles). */
  roles: MemberRole[];
}

/** Why an SSO sign-in found no account to sign in, in words for the sign-in page. */
export type FederatedRefusal = 'other_organization' | 'disabled' | 'not_provisioned';

/** A person acting through their own access token, with what they do in the organisation. */
export interface Member {
  userId: string;
  organizationId: string;
  email: string;
  name: string;
  roles: MemberRole[];
}

/**
 * The member a route acts for, or FORBIDDEN: such routes act for a person
 * signed in with their own token, never for an API key or a client.
 */
export function requireMember(member: Member | undefined): Member {
  if (member) return member;
  throw new AppError(
    'FORBIDDEN',
    'This endpoint acts for a person signed in with their own access token',
    {
      field: 'Authorization',
      issue:
        'sign the person in with the authorization code flow and call with their token; API keys and client credentials act for no one',
    },
  );
}

/**
 * What the audit log names a person by: their account's public id (`usr_…`),
 * which their tokens carry too; their `analyst_…` id goes in the details.
 */
export function personTarget(userId: string): AuditTarget {
  return { type: 'person', id: toPublicId('user', userId) };
}

/** Local accounts of the authorization server's sign-in page, and people signing in through SSO. */
@Injectable()
export class UsersService {
  constructor(
    private readonly sql: Sql,
    private readonly users: UsersRepository,
  ) {}

  findById(id: string): Promise<UserEntity | null> {
    return this.users.findByIdAcrossTenants(id);
  }

  /**
   * The person an access token was issued to. A token of no person (the
   * client_credentials grant) is FORBIDDEN; one whose user has since been
   * disabled, deleted or moved to another organisation is no longer valid.
   */
  async signedInUser(principal: Principal): Promise<UserEntity> {
    const userId = parsePublicId('user', principal.subject);
    if (userId === null) {
      throw new AppError('FORBIDDEN', 'This access token does not belong to a user', {
        field: 'Authorization',
        issue:
          'the token was issued to a client (client_credentials); sign a user in with the authorization code flow',
      });
    }
    const user = await this.users.find(principal.organizationId, userId);
    if (!user || user.disabledAt !== null) {
      throw AppError.unauthorized('the user of this token no longer exists');
    }
    return user;
  }

  /**
   * The member behind a person's access token (authorization code flow), read
   * afresh so a role taken away or an account disabled counts at once; null
   * for a client's token or an API key. A token of a person who no longer
   * exists here is no longer valid.
   */
  async memberOf(principal: Principal): Promise<Member | null> {
    if (principal.credential !== 'access_token') return null;
    const userId = parsePublicId('user', principal.subject);
    if (userId === null) return null;
    const user = await this.users.findIdentity(principal.organizationId, userId);
    if (!user || user.disabledAt !== null) {
      throw AppError.unauthorized('the user of this token no longer exists');
    }
    return {
      userId: user.id,
      organizationId: user.organizationId,
      email: user.email,
      name: user.name,
      roles: user.roles,
    };
  }

  /** Emails are compared without regard to case (the unique index is on lower(email)). */
  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findByEmailAcrossTenants(email);
  }

  /**
   * The account if the email and password match an enabled local account, else
   * null. Unknown emails cost the same hash, so timing does not tell them apart.
   */
  async authenticate(email: string, password: string): Promise<UserEntity | null> {
    const user = await this.findByEmail(email);
    const usable = user !== null && user.passwordHash !== null && user.disabledAt === null;
    const ok = await verifyPassword(
      password,
      usable ? user.passwordHash! : await decoyPasswordHash(),
    );
    return usable && ok ? user : null;
  }

  /**
   * The account of someone an SSO connection vouched for: created on the first
   * sign-in when the connection provisions (JIT), or the existing one of the
   * same email in the connection's organisation, updated every time with the
   * name, groups and the scopes they map to — so a group taken away takes its
   * scopes away from the next token. A local password, if any, is kept.
   * Either is an audit event whose actor is the connection (`person.created`,
   * or `person.updated` when the sign-in changed anything but its time).
   */
  async signInFederated(
    identity: FederatedIdentity,
  ): Promise<{ user: UserEntity } | { refused: FederatedRefusal }> {
    const signIn: FederatedSignIn = {
      identitySource: identity.source,
      ssoConnectionId: identity.connectionId,
      groups: identity.groups,
      scopes: identity.scopes,
      lastSignInAt: new Date(),
    };
    const existing = await this.findByEmail(identity.email);
    if (existing) {
      if (existing.organizationId !== identity.organizationId)
        return { refused: 'other_organization' };
      if (existing.disabledAt !== null) return { refused: 'disabled' };
      await this.sql.transaction(async (tx) => {
        await this.users.recordFederatedSignIn(
          tx,
          existing.organizationId,
          existing.id,
          signIn,
          identity.name || null,
        );
        const changes = auditChanges(
          { name: existing.name, ...federatedFields(existing) },
          { name: identity.name || existing.name, ...federatedFields(signIn) },
        );
        if (changes === null) return;
        await AuditLog.record(tx, ssoTenant(identity), {
          action: 'person.updated',
          actor: ssoActor(identity),
          target: personTarget(existing.id),
          changes,
          details: { source: identity.source, analyst_id: toPublicId('analyst', existing.id) },
        });
      });
      return { user: (await this.findById(existing.id))! };
    }
    if (!identity.provision) return { refused: 'not_provisioned' };
    const user = {
      id: newUuid(),
      email: identity.email.toLowerCase(),
      name: identity.name ?? identity.email.split('@')[0]!,
      roles: identity.roles,
    };
    await this.sql.transaction(async (tx) => {
      if (!(await this.users.insertFederatedIfAbsent(tx, identity.organizationId, user, signIn))) {
        return;
      }
      await AuditLog.record(tx, ssoTenant(identity), {
        action: 'person.created',
        actor: ssoActor(identity),
        target: personTarget(user.id),
        changes: auditChanges(
          {},
          { email: user.email, name: user.name, roles: user.roles, ...federatedFields(signIn) },
        ),
        details: { source: identity.source, analyst_id: toPublicId('analyst', user.id) },
      });
    });
    // A concurrent first sign-in of the same person may have won the insert: read what is there.
    const created = await this.findByEmail(identity.email);
    if (!created || created.organizationId !== identity.organizationId) {
      return { refused: 'other_organization' };
    }
    return { user: created };
  }

  /**
   * Creates the operator's administrator, or resets its password when the
   * environment changed it, so the environment stays the source of truth.
   */
  async ensureLocalAccount(organizationId: string, email: string, password: string): Promise<void> {
    const existing = await this.findByEmail(email);
    if (existing === null) {
      const account = {
        id: newUuid(),
        email,
        name: email.split('@')[0]!,
        passwordHash: await hashPassword(password),
      };
      await this.sql.transaction((tx) =>
        this.users.insertLocalIfAbsent(tx, organizationId, account),
      );
      return;
    }
    const unchanged =
      existing.passwordHash !== null &&
      existing.organizationId === organizationId &&
      (await verifyPassword(password, existing.passwordHash));
    if (unchanged) return;
    const passwordHash = await hashPassword(password);
    await this.sql.transaction((tx) =>
      this.users.resetLocalAccountAcrossTenants(tx, existing.id, organizationId, passwordHash),
    );
  }
}

/** People are live-mode things: an SSO sign-in's audit events are the organisation's live ones. */
function ssoTenant(identity: FederatedIdentity): { organizationId: string; mode: 'live' } {
  return { organizationId: identity.organizationId, mode: 'live' };
}

/** An SSO sign-in acts as its connection. */
function ssoActor(identity: FederatedIdentity): { type: 'system'; id: string } {
  return { type: 'system', id: toPublicId('ssoConnection', identity.connectionId) };
}

/** What an SSO sign-in writes on an account, as the audit log names it. */
function federatedFields(
  account: Pick<UserEntity, 'identitySource' | 'groups' | 'scopes'>,
): Record<string, unknown> {
  return {
    identity_source: account.identitySource,
    groups: account.groups,
    scopes: account.scopes,
  };
}
