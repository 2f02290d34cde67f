import { createHash, randomBytes } from 'node:crypto';

/**
 * SCIM tokens look like `sas_scim_<43 base64url chars>`: 32 random bytes
 * (256 bits). The prefix tells people and secret scanners what leaked; the
 * fixed shape lets a malformed bearer be refused without a database look-up.
 */
export const SCIM_TOKEN_PREFIX = 'sas_scim_';
const RANDOM_BYTES = 32;
const TOKEN_PATTERN = /^sas_scim_[A-Za-z0-9_-]{43}$/;

export function generateScimToken(): string {
  return SCIM_TOKEN_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
}

/** Whether `token` has the shape of a SCIM token (not whether one was issued). */
export function isScimTokenShaped(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

/** Tokens carry 256 bits of entropy, so a fast unsalted hash is enough to store and find them. */
export function hashScimToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
