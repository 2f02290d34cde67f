import { MEMBER_ROLES, type MemberRole } from '#auth';
import { AppError, isScope, type Principal } from '#common';
import { MAX_EMAIL_DOMAINS, type SsoConnectionType } from './sso-connection.js';
import { isPublicWebmail } from './webmail-domains.js';
import type { SsoConnectionInput } from './connection-config.js';

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
    // Everyone can have an address there: no organisation may route its sign-ins.
    if (isPublicWebmail(lower)) {
      throw AppError.invalid(
        'email_domains',
        `${lower} is a public webmail domain: give your organisation's own domain`,
      );
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
