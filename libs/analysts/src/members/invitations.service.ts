import { Injectable } from '@nestjs/common';
import { hashPassword, personTarget, UsersRepository } from '#auth';
import { toPublicId } from '#common';
import { Sql } from '#database';
import { AuditLog } from '#events';
import { OrganizationsService } from '#organizations';
import { invitationHash, isInvitationToken } from './invitation-tokens.js';
import { passwordProblem } from './member-fields.js';

/** An open invitation as its page shows it. */
export interface OpenInvitation {
  email: string;
  name: string;
  organizationName: string;
}

export type InvitationOutcome =
  | { accepted: OpenInvitation }
  /** The token names no open invitation (unknown, used or expired). */
  | { gone: true }
  /** The password breaks a rule (or the two do not match): the form again, saying which. */
  | { refused: string };

/**
 * The public side of invitations: the one-time link an admin hands a new
 * member, where they set their password. A token is usable once, until it
 * expires, and only while the account is enabled (and the member still
 * `invited`: enabled, without a password, never signed in — someone who
 * signed in through SSO in the meantime no longer needs, nor gets, a local
 * password through it); only its SHA-256 is stored.
 */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly sql: Sql,
    private readonly users: UsersRepository,
    private readonly organizations: OrganizationsService,
  ) {}

  /** The invitation a token opens, or null (unknown, used, expired, or the member no longer invited). */
  async find(token: string): Promise<OpenInvitation | null> {
    if (!isInvitationToken(token)) return null;
    const invitation = await this.users.findOpenInvitationAcrossTenants(invitationHash(token));
    const organization = invitation && (await this.organizations.get(invitation.organizationId));
    return invitation && organization
      ? { email: invitation.email, name: invitation.name, organizationName: organization.name }
      : null;
  }

  /**
   * Sets the password and ends the invitation, in one statement conditioned
   * on the invitation still being open, so a link used twice at once sets
   * one password and the other answer is `gone`. The person did it: a
   * `person.updated` audit event, theirs as actor and target.
   */
  async accept(token: string, password: string, confirmation: string): Promise<InvitationOutcome> {
    const open = await this.find(token);
    if (open === null) return { gone: true };
    const problem = passwordProblem(password);
    if (problem !== null) return { refused: `The password ${problem}.` };
    if (password !== confirmation) return { refused: 'The two passwords are not the same.' };
    const hash = await hashPassword(password);
    const accepted = await this.sql.transaction(async (tx) => {
      const account = await this.users.acceptInvitationAcrossTenants(
        tx,
        invitationHash(token),
        hash,
      );
      if (account === null) return false;
      const target = personTarget(account.id);
      await AuditLog.record(
        tx,
        { organizationId: account.organizationId, mode: 'live' },
        {
          action: 'person.updated',
          actor: { type: 'person', id: target.id },
          target,
          changes: { status: { before: 'invited', after: 'active' } },
          details: { invitation: 'accepted', analyst_id: toPublicId('analyst', account.id) },
        },
      );
      return true;
    });
    return accepted ? { accepted: open } : { gone: true };
  }
}
