import { MAX_PASSWORD_LENGTH, MEMBER_ROLES, type MemberRole } from '#auth';
import { AppError } from '#common';
import { MIN_PASSWORD_LENGTH } from './analyst.js';

/** What a request asks of a member; absent fields are left as they are (or defaulted on create). */
export interface MemberInput {
  email?: string;
  name?: string;
  roles?: string[];
  password?: string;
  disabled?: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL_LENGTH = 254;
const MAX_NAME_LENGTH = 200;

/** Emails are stored lower-cased, as sign-in and SSO compare them. */
export function checkedEmail(email: string | undefined): string {
  if (email === undefined) throw AppError.invalid('email', 'required');
  const trimmed = email.trim().toLowerCase();
  if (trimmed.length > MAX_EMAIL_LENGTH || !EMAIL.test(trimmed)) {
    throw AppError.invalid('email', 'must be an email address');
  }
  return trimmed;
}

export function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_NAME_LENGTH) {
    throw AppError.invalid('name', `must be 1–${MAX_NAME_LENGTH} characters`);
  }
  return trimmed;
}

/** A non-empty set of known roles, in the catalogue's order, each once. */
export function checkedRoles(roles: readonly string[]): MemberRole[] {
  if (roles.length === 0) {
    throw AppError.invalid('roles', `must name at least one of ${MEMBER_ROLES.join(', ')}`, [
      'analyst',
    ]);
  }
  const unknown = roles.find((role) => !(MEMBER_ROLES as readonly string[]).includes(role));
  if (unknown !== undefined) {
    throw AppError.invalid('roles', `must each be one of ${MEMBER_ROLES.join(', ')}`);
  }
  return MEMBER_ROLES.filter((role) => roles.includes(role));
}

/**
 * The rules of a local password, wherever one is set (the people API, an
 * invitation): at least MIN_PASSWORD_LENGTH characters, at most what the
 * hasher accepts, not blank. `field` names it in the error.
 */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  }
  if (password.trim().length === 0) return 'must not be blank';
  return null;
}

export function checkedPassword(password: string, field = 'password'): string {
  const problem = passwordProblem(password);
  if (problem !== null) throw AppError.invalid(field, problem);
  return password;
}
