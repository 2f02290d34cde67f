import { describe, expect, it } from 'vitest';
import { newUuid } from '#common';
import { REDACTED } from '#events';
import { connectionChanges, idpChanges } from './connection-audit.js';
import type { LdapConfig, SamlConfig, SsoConnection } from './sso-connection.js';

/** What the audit log keeps of a connection's changes: API names, never a secret or a PEM. */

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

const saml: SamlConfig = {
  kind: 'saml',
  idpMetadataUrl: null,
  idpEntityId: 'https://idp.example.com',
  idpSsoUrl: 'https://idp.example.com/sso',
  idpCertificates: [PEM],
  allowIdpInitiated: false,
  clockSkewSeconds: 60,
  spCertificate: `${PEM}-sp`,
};

const ldap: LdapConfig = {
  kind: 'ldap',
  url: 'ldaps://directory.example.com',
  startTls: false,
  allowInsecure: false,
  caCertificate: PEM,
  bindDn: 'cn=service,dc=example,dc=com',
  userBaseDn: 'ou=people,dc=example,dc=com',
  userFilter: '(mail={username})',
  groupBaseDn: null,
  groupFilter: null,
  groupNameAttribute: 'cn',
  nestedGroups: false,
  emailAttribute: 'mail',
  nameAttribute: 'cn',
};

function connection(config: SamlConfig | LdapConfig): SsoConnection {
  return {
    id: newUuid(),
    organizationId: newUuid(),
    mode: 'live',
    type: config.kind,
    name: 'Corp',
    emailDomains: ['corp.example.com'],
    defaultScopes: ['remote-viewing:read'],
    groupScopes: {},
    jitProvisioning: true,
    jitRoles: ['analyst'],
    enabled: true,
    config,
    metadataFetchedAt: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
}

describe('connectionChanges', () => {
  it('gives every field of a new LDAP connection, the CA certificate and bind password redacted', () => {
    const changes = connectionChanges(null, connection(ldap), true)!;
    expect(changes).toMatchObject({
      type: { before: null, after: 'ldap' },
      name: { before: null, after: 'Corp' },
      email_domains: { before: null, after: ['corp.example.com'] },
      url: { before: null, after: 'ldaps://directory.example.com' },
      bind_dn: { before: null, after: 'cn=service,dc=example,dc=com' },
      ca_certificate: { before: null, after: REDACTED },
      bind_password: { before: null, after: REDACTED },
    });
    // Null fields of a new connection are no change.
    expect(changes).not.toHaveProperty('group_filter');
    expect(JSON.stringify(changes)).not.toContain('BEGIN CERTIFICATE');
  });

  it('gives only what an update changed, in the API’s names', () => {
    const before = connection(saml);
    const after: SsoConnection = {
      ...before,
      enabled: false,
      jitRoles: ['analyst', 'judge'],
      config: { ...saml, idpCertificates: [PEM, `${PEM}-new`], clockSkewSeconds: 120 },
    };
    expect(connectionChanges(before, after, false)).toEqual({
      jit_roles: { before: ['analyst'], after: ['analyst', 'judge'] },
      enabled: { before: true, after: false },
      idp_certificates: { before: REDACTED, after: REDACTED },
      clock_skew_seconds: { before: 60, after: 120 },
    });
  });

  it('shows a new bind password as changed, never its value; nothing changed is null', () => {
    const before = connection(ldap);
    expect(connectionChanges(before, before, true)).toEqual({
      bind_password: { before: REDACTED, after: REDACTED },
    });
    expect(connectionChanges(before, before, false)).toBeNull();
  });
});

describe('idpChanges', () => {
  it('gives the IdP settings new metadata changed, certificates redacted', () => {
    expect(idpChanges(saml, { ...saml, idpCertificates: [`${PEM}-rotated`] })).toEqual({
      idp_certificates: { before: REDACTED, after: REDACTED },
    });
    expect(idpChanges(saml, { ...saml })).toBeNull();
  });
});
