import type { DomainClaim, SsoConnection, SsoConnectionInput } from '#sso';
import { samlEndpoints, ssoConnectionPublicId, verificationRecord } from '#sso';
import type { SsoConnectionDto } from './sso-connection-response-v2.dto.js';
import type { CreateSsoConnectionDto, UpdateSsoConnectionDto } from './sso-connection-v2.dto.js';

export function toSsoConnectionDto(
  connection: SsoConnection & { domains: DomainClaim[] },
  publicUrl: string,
): SsoConnectionDto {
  const id = ssoConnectionPublicId(connection);
  const common = {
    id,
    type: connection.type,
    name: connection.name,
    email_domains: connection.emailDomains,
    domains: connection.domains.map((claim) => ({
      domain: claim.domain,
      status: claim.status,
      verification: { type: 'dns_txt' as const, ...verificationRecord(claim) },
    })),
    default_scopes: connection.defaultScopes,
    group_scopes: connection.groupScopes,
    jit_provisioning: connection.jitProvisioning,
    jit_roles: connection.jitRoles,
    enabled: connection.enabled,
    created_at: connection.createdAt.toISOString(),
    updated_at: connection.updatedAt.toISOString(),
  };
  const config = connection.config;
  if (config.kind === 'saml') {
    const sp = samlEndpoints(publicUrl, id);
    return {
      ...common,
      sp_entity_id: sp.entityId,
      acs_url: sp.acsUrl,
      sp_metadata_url: sp.metadataUrl,
      idp_metadata_url: config.idpMetadataUrl,
      metadata_fetched_at: connection.metadataFetchedAt?.toISOString() ?? null,
      idp_entity_id: config.idpEntityId,
      idp_sso_url: config.idpSsoUrl,
      idp_certificates: config.idpCertificates,
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

/** The request's fields as the service takes them; absent stays absent (PATCH). */
export function toSsoConnectionInput(
  body: CreateSsoConnectionDto | UpdateSsoConnectionDto,
): SsoConnectionInput {
  const defined = <T extends object>(fields: T): T =>
    Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
  return defined({
    type: 'type' in body ? body.type : undefined,
    name: body.name,
    emailDomains: body.email_domains,
    defaultScopes: body.default_scopes,
    groupScopes: body.group_scopes,
    jitProvisioning: body.jit_provisioning,
    jitRoles: body.jit_roles,
    enabled: body.enabled,
    saml: defined({
      idpMetadataXml: body.idp_metadata_xml,
      idpMetadataUrl: body.idp_metadata_url,
      idpEntityId: body.idp_entity_id,
      idpSsoUrl: body.idp_sso_url,
      idpCertificates: body.idp_certificates,
      allowIdpInitiated: body.allow_idp_initiated,
      clockSkewSeconds: body.clock_skew_seconds,
    }),
    ldap: defined({
      url: body.url,
      startTls: body.start_tls,
      allowInsecure: body.allow_insecure,
      caCertificate: body.ca_certificate,
      bindDn: body.bind_dn,
      bindPassword: body.bind_password,
      userBaseDn: body.user_base_dn,
      userFilter: body.user_filter,
      groupBaseDn: body.group_base_dn,
      groupFilter: body.group_filter,
      groupNameAttribute: body.group_name_attribute,
      nestedGroups: body.nested_groups,
      emailAttribute: body.email_attribute,
      nameAttribute: body.name_attribute,
    }),
  });
}
