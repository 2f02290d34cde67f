import { Injectable } from '@nestjs/common';
import { hashPassword } from '#auth';
import { Sql } from '#database';
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
 * An invitation works while it has not expired and the member is still
 * `invited`: enabled, without a password, never signed in — someone who
 * signed in through SSO in the meantime no longer needs (nor gets) a local
 * password through it. `%` stands for the table's alias.
 */
const STILL_INVITED = `%invitation_expires_at > now() AND %disabled_at IS NULL
  AND %password_hash IS NULL AND %last_sign_in_at IS NULL`;

/**
 * The public side of invitations: the one-time link an admin hands a new
 * member, where they set their password. A token is usable once, until it
 * expires, and only while the account is enabled; only its SHA-256 is stored.
 */
@Injectable()
export class InvitationsService {
  constructor(private readonly sql: Sql) {}

  /** The invitation a token opens, or null (unknown, used, expired, or the member no longer invited). */
  async find(token: string): Promise<OpenInvitation | null> {
    if (!isInvitationToken(token)) return null;
    const [row] = await this.sql.rows<{ email: string; name: string; organization_name: string }>(
      `SELECT u.email, u.name, o.name AS organization_name
        FROM users u JOIN organizations o ON o.id = u.organization_id
        WHERE u.invitation_hash = $1 AND ${STILL_INVITED.replaceAll('%', 'u.')}`,
      [invitationHash(token)],
    );
    return row
      ? { email: row.email, name: row.name, organizationName: row.organization_name }
      : null;
  }

  /**
   * Sets the password and ends the invitation, in one statement conditioned
   * on the invitation still being open, so a link used twice at once sets
   * one password and the other answer is `gone`.
   */
  async accept(token: string, password: string, confirmation: string): Promise<InvitationOutcome> {
    const open = await this.find(token);
    if (open === null) return { gone: true };
    const problem = passwordProblem(password);
    if (problem !== null) return { refused: `The password ${problem}.` };
    if (password !== confirmation) return { refused: 'The two passwords are not the same.' };
    const hash = await hashPassword(password);
    const updated = await this.sql.rows(
      `UPDATE users SET password_hash = $2, invitation_hash = NULL, invitation_expires_at = NULL,
          updated_at = now()
        WHERE invitation_hash = $1 AND ${STILL_INVITED.replaceAll('%', '')}
        RETURNING id`,
      [invitationHash(token), hash],
    );
    return updated.length === 1 ? { accepted: open } : { gone: true };
  }
}
