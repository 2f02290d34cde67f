import { describe, expect, it } from 'vitest';
import { AppError } from '#common';
import type { MemberRecord } from '#auth';
import { analystOf } from './analyst-of.js';
import { invitationHash, isInvitationToken, newInvitationToken } from './invitation-tokens.js';
import { checkedEmail, checkedRoles, passwordProblem } from './member-fields.js';

function refusal(work: () => unknown): { field?: string; issue?: string } {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).details as { field?: string; issue?: string };
  }
  throw new Error('not refused');
}

describe('member fields', () => {
  it('keeps emails lower-cased and trimmed, and refuses what is not one', () => {
    expect(checkedEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    for (const email of [
      undefined,
      '',
      'ada',
      'ada@example',
      'a b@example.com',
      `${'a'.repeat(250)}@x.io`,
    ]) {
      expect(refusal(() => checkedEmail(email)).field).toBe('email');
    }
  });

  it('orders roles as the catalogue does, each once, and refuses none or unknown ones', () => {
    expect(checkedRoles(['judge', 'admin', 'judge'])).toEqual(['admin', 'judge']);
    expect(refusal(() => checkedRoles([])).field).toBe('roles');
    expect(refusal(() => checkedRoles(['analyst', 'owner'])).field).toBe('roles');
  });

  it('asks passwords for twelve characters (counted as people see them) and no blanks', () => {
    expect(passwordProblem('elevenchars')).toContain('at least 12');
    expect(passwordProblem('twelve chars')).toBeNull();
    expect(passwordProblem('🔑'.repeat(12))).toBeNull();
    expect(passwordProblem(' '.repeat(12))).toBe('must not be blank');
    expect(passwordProblem('x'.repeat(1025))).toContain('at most 1024');
  });
});

describe('invitation tokens', () => {
  it('are 256 random bits in base64url, stored only as their SHA-256', () => {
    const token = newInvitationToken();
    expect(isInvitationToken(token)).toBe(true);
    expect(newInvitationToken()).not.toBe(token);
    expect(invitationHash(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(invitationHash('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(isInvitationToken('not-a-token')).toBe(false);
  });
});

describe('statuses', () => {
  const member = (changes: Partial<MemberRecord>): MemberRecord => ({
    id: 'u',
    organizationId: 'o',
    email: 'e@example.com',
    name: 'E',
    roles: ['analyst'],
    identitySource: 'local',
    scimManaged: false,
    hasPassword: false,
    invitationExpiresAt: null,
    disabledAt: null,
    createdAt: new Date(0),
    lastSignInAt: null,
    ...changes,
  });

  it('invited until a password or an SSO sign-in; disabled above all', () => {
    expect(analystOf(member({})).status).toBe('invited');
    expect(analystOf(member({ hasPassword: true })).status).toBe('active');
    expect(analystOf(member({ lastSignInAt: new Date(), identitySource: 'saml' })).status).toBe(
      'active',
    );
    expect(analystOf(member({ hasPassword: true, disabledAt: new Date() })).status).toBe(
      'disabled',
    );
  });
});
