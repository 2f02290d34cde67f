import { createHash, randomBytes } from 'node:crypto';

/** A one-time invitation token: 32 random bytes, base64url (43 characters). */
export function newInvitationToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Only this is stored (users.invitation_hash): the token itself is shown once and never kept. */
export function invitationHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What a token this service issued looks like; anything else is unknown without a look-up. */
export function isInvitationToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}
