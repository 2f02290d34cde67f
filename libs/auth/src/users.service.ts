import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Principal } from '#common';
import { Sql } from '#database';
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
      await this.sql.transaction((tx) =>
        this.users.recordFederatedSignIn(
          tx,
          existing.organizationId,
          existing.id,
          signIn,
          identity.name || null,
        ),
      );
      return { user: (await this.findById(existing.id))! };
    }
    if (!identity.provision) return { refused: 'not_provisioned' };
    const user = {
      id: newUuid(),
      email: identity.email.toLowerCase(),
      name: identity.name ?? identity.email.split('@')[0]!,
      roles: identity.roles,
    };
    await this.sql.transaction((tx) =>
      this.users.insertFederatedIfAbsent(tx, identity.organizationId, user, signIn),
    );
    // A concurrent first sign-in of the same person may have won the insert: read what is there.
    const created = await this.findByEmail(identity.email);
    if (!created || created.organizationId !== identity.organizationId) {
      return { refused: 'other_organization' };
    }
    return { user: created };
  }

  /** A deleted SSO connection: its people keep their accounts, no longer linked to it. */
  async forgetConnection(organizationId: string, connectionId: string): Promise<void> {
    await this.sql.transaction((tx) =>
      this.users.forgetConnection(tx, organizationId, connectionId),
    );
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
