import { toPublicId } from '#common';
import { auditChanges, REDACTED, type AuditChanges, type AuditTarget } from '#events';
import type { SamlConfig, SsoConnection } from './sso-connection.js';

/**
 * Fields whose values the audit log never keeps: PEM certificates (the IdP's
 * signing ones, a directory's CA) are long, and which one was trusted is a
 * question for the connection, not its history; that they changed is kept.
 * The bind password and the SP private key are secrets and never get this far.
 */
const WITHHELD = ['idp_certificates', 'ca_certificate'] as const;

/** What the audit log names a connection by. */
export function connectionTarget(connectionId: string): AuditTarget {
  return { type: 'sso_connection', id: toPublicId('ssoConnection', connectionId) };
}

/**
 * The changes of a connection, in the API's field names: every field of a
 * new one (`before` null), or those an update changed. `bindPasswordSet`:
 * a bind password was given, which shows as changed, redacted.
 */
export function connectionChanges(
  before: SsoConnection | null,
  after: SsoConnection,
  bindPasswordSet: boolean,
): AuditChanges | null {
  const changes =
    withheld(auditChanges(before === null ? {} : auditFields(before), auditFields(after))) ?? {};
  if (bindPasswordSet) {
    changes.bind_password = { before: before === null ? null : REDACTED, after: REDACTED };
  }
  return Object.keys(changes).length === 0 ? null : changes;
}

/** What a refresh of a SAML connection's metadata changed of its IdP settings. */
export function idpChanges(before: SamlConfig, after: SamlConfig): AuditChanges | null {
  return withheld(auditChanges(idpFields(before), idpFields(after)));
}

/** The changes with the values of WITHHELD fields replaced by REDACTED. */
function withheld(changes: AuditChanges | null): AuditChanges | null {
  if (changes === null) return null;
  for (const field of WITHHELD) {
    const change = changes[field];
    if (change === undefined) continue;
    changes[field] = {
      before: change.before === null ? null : REDACTED,
      after: change.after === null ? null : REDACTED,
    };
  }
  return changes;
}

function idpFields(config: SamlConfig): Record<string, unknown> {
  return {
    idp_entity_id: config.idpEntityId,
    idp_sso_url: config.idpSsoUrl,
    idp_certificates: config.idpCertificates,
  };
}

/** A connection's settings as the API names them, the secrets left out. */
function auditFields(connection: SsoConnection): Record<string, unknown> {
  const common = {
    type: connection.type,
    name: connection.name,
    email_domains: connection.emailDomains,
    default_scopes: connection.defaultScopes,
    group_scopes: connection.groupScopes,
    jit_provisioning: connection.jitProvisioning,
    jit_roles: connection.jitRoles,
    enabled: connection.enabled,
  };
  const config = connection.config;
  if (config.kind === 'saml') {
    return {
      ...common,
      idp_metadata_url: config.idpMetadataUrl,
      ...idpFields(config),
      allow_idp_initiated: config.allowIdpInitiated,
      clock_skew_seconds: config.clockSkewSeconds,
    };
  }
  return {
    ...common,
    url: config.url,
    start_tls: config.startTls,
    allow_insecure: config.allowInsecure,
    ca_certificate: config.caCertificate,
    bind_dn: config.bindDn,
    user_base_dn: config.userBaseDn,
    user_filter: config.userFilter,
    group_base_dn: config.groupBaseDn,
    group_filter: config.groupFilter,
    group_name_attribute: config.groupNameAttribute,
    nested_groups: config.nestedGroups,
    email_attribute: config.emailAttribute,
    name_attribute: config.nameAttribute,
  };
}
