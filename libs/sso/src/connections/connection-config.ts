import { X509Certificate } from 'node:crypto';
import { AppError } from '#common';
import type { DestinationPolicy, OutboundFetcher } from '#outbound';
import { ldapSettings, ldapSettingsIssues } from '../ldap/index.js';
import { parseIdpMetadata, SamlConfigError, type IdpMetadata } from '../saml/index.js';
import {
  DEFAULT_CLOCK_SKEW_SECONDS,
  MAX_CLOCK_SKEW_SECONDS,
  type LdapConfig,
  type SamlConfig,
  type SsoConnectionType,
} from './sso-connection.js';

/** The SAML fields a request may set (absent: unchanged; a metadata source replaces the others). */
export interface SamlInput {
  idpMetadataXml?: string | null;
  idpMetadataUrl?: string | null;
  idpEntityId?: string | null;
  idpSsoUrl?: string | null;
  idpCertificates?: string[] | null;
  allowIdpInitiated?: boolean;
  clockSkewSeconds?: number;
}

export interface LdapInput {
  url?: string;
  startTls?: boolean;
  allowInsecure?: boolean;
  caCertificate?: string | null;
  bindDn?: string;
  bindPassword?: string;
  userBaseDn?: string;
  userFilter?: string;
  groupBaseDn?: string | null;
  groupFilter?: string | null;
  groupNameAttribute?: string;
  nestedGroups?: boolean;
  emailAttribute?: string;
  nameAttribute?: string;
}

/** What a create or update may set; absent fields are left as they are. */
export interface SsoConnectionInput {
  type?: SsoConnectionType;
  name?: string;
  emailDomains?: string[];
  defaultScopes?: string[];
  groupScopes?: Record<string, string[]>;
  jitProvisioning?: boolean;
  jitRoles?: string[];
  enabled?: boolean;
  saml?: SamlInput;
  ldap?: LdapInput;
}

const METADATA_MAX_BYTES = 1024 * 1024;
const METADATA_TIMEOUT_MS = 10_000;

/**
 * A SAML connection's IdP settings from exactly one source: the metadata XML,
 * its https URL (fetched under the destination policy, as webhooks are), or
 * the entity id, SSO URL and certificates as fields. Every problem is a 400
 * naming the field it came from.
 */
export async function resolveSamlConfig(
  input: SamlInput,
  previous: SamlConfig | null,
  spCertificate: string,
  fetcher: OutboundFetcher,
): Promise<{ config: SamlConfig; fetched: boolean }> {
  const sources = [
    input.idpMetadataXml ? 'idp_metadata_xml' : null,
    input.idpMetadataUrl ? 'idp_metadata_url' : null,
    input.idpEntityId || input.idpSsoUrl || input.idpCertificates ? 'idp_entity_id' : null,
  ].filter((source) => source !== null);
  if (sources.length > 1) {
    throw AppError.invalid(
      sources[1]!,
      'give one IdP source: idp_metadata_xml, idp_metadata_url, or idp_entity_id with idp_sso_url and idp_certificates',
    );
  }
  const skew = input.clockSkewSeconds ?? previous?.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  if (!Number.isInteger(skew) || skew < 0 || skew > MAX_CLOCK_SKEW_SECONDS) {
    throw AppError.invalid(
      'clock_skew_seconds',
      `must be a whole number 0–${MAX_CLOCK_SKEW_SECONDS}`,
    );
  }
  const common = {
    kind: 'saml' as const,
    allowIdpInitiated: input.allowIdpInitiated ?? previous?.allowIdpInitiated ?? false,
    clockSkewSeconds: skew,
    spCertificate,
  };
  if (input.idpMetadataXml) {
    const idp = metadataOf(input.idpMetadataXml, 'idp_metadata_xml');
    return { config: { ...common, ...idpFields(idp), idpMetadataUrl: null }, fetched: false };
  }
  if (input.idpMetadataUrl) {
    const idp = await fetchIdpMetadata(input.idpMetadataUrl, fetcher);
    return {
      config: { ...common, ...idpFields(idp), idpMetadataUrl: input.idpMetadataUrl },
      fetched: true,
    };
  }
  if (sources.length === 0) {
    if (previous === null) {
      throw AppError.invalid(
        'idp_metadata_xml',
        'required: idp_metadata_xml, idp_metadata_url, or idp_entity_id with idp_sso_url and idp_certificates',
      );
    }
    return { config: { ...previous, ...common }, fetched: false };
  }
  return { config: { ...common, ...idpFromFields(input), idpMetadataUrl: null }, fetched: false };
}

/** Fetches and parses an IdP's metadata (also the daily refresh); a 400 naming idp_metadata_url. */
export async function fetchIdpMetadata(
  url: string,
  fetcher: OutboundFetcher,
): Promise<IdpMetadata> {
  if (!url.startsWith('https://'))
    throw AppError.invalid('idp_metadata_url', 'must be an https:// URL');
  const fetched = await fetcher.fetch(url, {
    maxBytes: METADATA_MAX_BYTES,
    timeoutMs: METADATA_TIMEOUT_MS,
  });
  if (!fetched.ok)
    throw AppError.invalid('idp_metadata_url', `could not be fetched: ${fetched.error}`);
  if (fetched.status !== 200) {
    throw AppError.invalid('idp_metadata_url', `answered HTTP ${fetched.status}, not 200`);
  }
  return metadataOf(fetched.bytes.toString('utf8'), 'idp_metadata_url');
}

function metadataOf(xml: string, field: string): IdpMetadata {
  try {
    return parseIdpMetadata(xml);
  } catch (error) {
    if (error instanceof SamlConfigError) throw AppError.invalid(field, error.issue);
    throw error;
  }
}

function idpFields(
  idp: IdpMetadata,
): Pick<SamlConfig, 'idpEntityId' | 'idpSsoUrl' | 'idpCertificates'> {
  return { idpEntityId: idp.entityId, idpSsoUrl: idp.ssoUrl, idpCertificates: idp.certificates };
}

function idpFromFields(
  input: SamlInput,
): Pick<SamlConfig, 'idpEntityId' | 'idpSsoUrl' | 'idpCertificates'> {
  if (!input.idpEntityId)
    throw AppError.invalid('idp_entity_id', 'required with idp_sso_url and idp_certificates');
  if (!input.idpSsoUrl)
    throw AppError.invalid('idp_sso_url', 'required with idp_entity_id and idp_certificates');
  if (!/^https:\/\/[^\s]+$/.test(input.idpSsoUrl) || !URL.canParse(input.idpSsoUrl)) {
    throw AppError.invalid('idp_sso_url', 'must be an https:// URL');
  }
  const certificates = input.idpCertificates ?? [];
  if (certificates.length === 0) {
    throw AppError.invalid('idp_certificates', 'at least one PEM certificate the IdP signs with');
  }
  certificates.forEach((pem, index) => {
    try {
      new X509Certificate(pem);
    } catch {
      throw AppError.invalid(`idp_certificates.${index}`, 'is not a PEM X.509 certificate');
    }
  });
  return {
    idpEntityId: input.idpEntityId,
    idpSsoUrl: input.idpSsoUrl,
    idpCertificates: certificates,
  };
}

/**
 * An LDAP connection's settings merged over the stored ones, checked whole
 * (`ldapSettingsIssues`: URL and TLS rules, DNs, filters with their
 * placeholders, no control characters) and its host against the
 * destination policy, as a webhook's is: a directory on a loopback, private
 * or link-local address only when the operator allow-listed it, and plain
 * `ldap://` without StartTLS (`allow_insecure`) only to such a host. The
 * bind password is required when the connection is created.
 */
export async function resolveLdapConfig(
  input: LdapInput,
  previous: LdapConfig | null,
  policy: DestinationPolicy,
): Promise<{ config: LdapConfig; bindPassword: string | null }> {
  const merged = ldapSettings({
    // Missing required fields are empty, so the checks name them.
    url: '',
    bindDn: '',
    userBaseDn: '',
    userFilter: '',
    ...(previous ?? {}),
    ...Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)),
    // A stored password is checked as present; the real one is sealed apart.
    bindPassword: input.bindPassword ?? (previous ? 'stored' : ''),
  } as Parameters<typeof ldapSettings>[0]);
  const [issue] = ldapSettingsIssues(merged, {
    plainLdapAllowed: (host) => policy.isAllowListed(host),
  });
  if (issue) throw AppError.invalid(issue.field, issue.issue);
  await policy.assertReachable(new URL(merged.url), 'url');
  const { bindPassword: _password, ...config } = merged;
  return { config: { kind: 'ldap', ...config }, bindPassword: input.bindPassword ?? null };
}
