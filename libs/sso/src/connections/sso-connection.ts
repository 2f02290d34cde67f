import type { MemberRole } from '#auth';
import type { Mode } from '#common';
import type { LdapSettings } from '../ldap/index.js';

export const SSO_CONNECTION_TYPES = ['saml', 'ldap'] as const;
export type SsoConnectionType = (typeof SSO_CONNECTION_TYPES)[number];

/** Most email domains one connection signs in, and most groups it maps. */
export const MAX_EMAIL_DOMAINS = 50;
export const MAX_GROUP_MAPPINGS = 200;
export const DEFAULT_CLOCK_SKEW_SECONDS = 60;
export const MAX_CLOCK_SKEW_SECONDS = 600;

/** A SAML identity provider's settings as stored (`config`); the SP private key is sealed apart. */
export interface SamlConfig {
  kind: 'saml';
  /** Where the metadata was read from (refreshed daily), or null when given inline or as fields. */
  idpMetadataUrl: string | null;
  idpEntityId: string;
  idpSsoUrl: string;
  /** PEM, every certificate the IdP may sign with (rotation: old and new side by side). */
  idpCertificates: string[];
  allowIdpInitiated: boolean;
  clockSkewSeconds: number;
  /** Our signing certificate for this connection (PEM), published in its SP metadata. */
  spCertificate: string;
}

/** An LDAP directory's settings as stored (`config`); the bind password is sealed apart. */
export type LdapConfig = { kind: 'ldap' } & Omit<LdapSettings, 'bindPassword'>;

export interface SsoConnection {
  id: string;
  organizationId: string;
  mode: Mode;
  type: SsoConnectionType;
  name: string;
  emailDomains: string[];
  defaultScopes: string[];
  groupScopes: Record<string, string[]>;
  jitProvisioning: boolean;
  /** Roles of the people it provisions (docs/analysts.md); existing people keep theirs. */
  jitRoles: MemberRole[];
  enabled: boolean;
  config: SamlConfig | LdapConfig;
  metadataFetchedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
