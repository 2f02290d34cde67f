import type pg from 'pg';
import { MEMBER_ROLES, type MemberRole } from '#auth';
import { AppError, isScope, type Principal } from '#common';
import { MAX_EMAIL_DOMAINS, type SsoConnectionType } from './sso-connection.js';
import type { SsoConnectionInput } from './connection-config.js';

const UNIQUE_VIOLATION = '23505';
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** A field of the other type's settings is a mistake worth naming, not something to drop. */
export function assertOwnFields(type: SsoConnectionType, input: SsoConnectionInput): void {
  const foreign = type === 'saml' ? input.ldap : input.saml;
  const [name] = Object.keys(foreign ?? {});
  if (name !== undefined) {
    throw AppError.invalid(
      name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
      `is not a setting of a ${type} connection`,
    );
  }
}

export function checkedDomains(domains: string[]): string[] {
  if (domains.length === 0 || domains.length > MAX_EMAIL_DOMAINS) {
    throw AppError.invalid('email_domains', `1–${MAX_EMAIL_DOMAINS} domains`);
  }
  const normalised = domains.map((domain, index) => {
    const lower = domain.trim().toLowerCase();
    if (!DOMAIN.test(lower)) {
      throw AppError.invalid(`email_domains.${index}`, 'is not a domain name (example.com)');
    }
    return lower;
  });
  if (new Set(normalised).size !== normalised.length) {
    throw AppError.invalid('email_domains', 'lists a domain twice');
  }
  return normalised;
}

/** The roles a connection gives the people it provisions: a non-empty list of member roles. */
export function checkedJitRoles(roles: unknown): MemberRole[] {
  if (!Array.isArray(roles) || roles.length === 0) {
    throw AppError.invalid('jit_roles', `must be a non-empty list of ${MEMBER_ROLES.join(', ')}`);
  }
  for (const role of roles) {
    if (!(MEMBER_ROLES as readonly unknown[]).includes(role)) {
      throw AppError.invalid(
        'jit_roles',
        `unknown role ${String(role)}: one of ${MEMBER_ROLES.join(', ')}`,
      );
    }
  }
  return [...new Set(roles as MemberRole[])].sort();
}

export function checkedScopes(principal: Principal, scopes: unknown, field: string): string[] {
  if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string')) {
    throw AppError.invalid(field, 'must be a list of scopes');
  }
  for (const scope of scopes as string[]) {
    if (!isScope(scope)) throw AppError.invalid(field, `unknown scope ${scope}`);
    if (!principal.scopes.includes(scope)) {
      throw AppError.invalid(field, `${scope} is more than your own credential has`);
    }
  }
  return [...new Set(scopes as string[])].sort();
}

/**
 * Claims a connection's email domains; one another connection has is a 409
 * naming `email_domains` (the sign-in page routes by domain across every
 * organisation, so a domain belongs to one connection only).
 */
export async function claimDomains(
  tx: pg.PoolClient,
  connectionId: string,
  domains: string[],
): Promise<void> {
  try {
    await tx.query('SAVEPOINT claim_domains');
    await tx.query(
      `INSERT INTO sso_email_domains (domain, connection_id) SELECT unnest($2::text[]), $1`,
      [connectionId, domains],
    );
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT claim_domains');
    const { rows } = await tx.query<{ domain: string }>(
      `SELECT domain FROM sso_email_domains WHERE domain = ANY($1) AND connection_id <> $2
        ORDER BY domain LIMIT 1`,
      [domains, connectionId],
    );
    throw new AppError('CONFLICT', 'An email domain is already signed in by another connection', {
      field: 'email_domains',
      issue: `${rows[0]?.domain ?? 'a domain'} already belongs to an SSO connection`,
    });
  }
}
