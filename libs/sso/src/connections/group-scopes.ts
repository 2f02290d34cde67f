import type { SsoConnection } from './sso-connection.js';

/**
 * The scopes a person's groups give them through a connection: its default
 * scopes and those of every group it maps. The one mapping of groups, for
 * SAML and LDAP sign-ins and for SCIM group memberships alike.
 */
export function scopesOfGroups(
  connection: Pick<SsoConnection, 'defaultScopes' | 'groupScopes'>,
  groups: readonly string[],
): string[] {
  const scopes = new Set(connection.defaultScopes);
  for (const group of groups) {
    for (const scope of connection.groupScopes[group] ?? []) scopes.add(scope);
  }
  return [...scopes].sort();
}
