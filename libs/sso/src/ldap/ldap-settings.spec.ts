import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  fillFilterTemplate,
  ldapSettings,
  ldapSettingsIssues,
  type LdapSettings,
} from './ldap-settings.js';

// A real self-signed certificate (CN=ldap-settings-spec), so the PEM check has something valid.
const CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBkDCCATegAwIBAgIUdvvzgHcCMbAh2O+HO4VirNPCtAQwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSbGRhcC1zZXR0aW5ncy1zcGVjMCAXDTI2MTEyNDA4MDUzOFoY
DzIxMjYxMDMxMDgwNTM4WjAdMRswGQYDVQQDDBJsZGFwLXNldHRpbmdzLXNwZWMw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATTdoN64+aKblOdBCZP3srnAF1IC/cg
2feTvxKiEAS+h9ka3LYdtOssFgz5bADxzB9GmWR7SYqe6ODyY8P92cmuo1MwUTAd
BgNVHQ4EFgQU62RCUYTX1GabKNX0pKFTrDiht5YwHwYDVR0jBBgwFoAU62RCUYTX
1GabKNX0pKFTrDiht5YwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBE
AiAm04rnrnLYcxTT4XcZrjKwBLH0peK7Mav0u3hSTI5QagIgKr2EvMXv5eU0sqaP
KXh35aSrWlT9cyMYcZwjjd9nbyM=
-----END CERTIFICATE-----`;

function valid(overrides: Partial<LdapSettings> = {}): LdapSettings {
  return ldapSettings({
    url: 'ldaps://ldap.example.com:636',
    bindDn: 'cn=service,dc=example,dc=com',
    bindPassword: 'service-password',
    userBaseDn: 'ou=people,dc=example,dc=com',
    userFilter: '(&(objectClass=person)(mail={username}))',
    ...overrides,
  });
}

/** The fields with issues; `allowListed` hosts may take plain LDAP (OUTBOUND_PRIVATE_ALLOWLIST). */
function fields(overrides: Partial<LdapSettings>, allowListed: string[] = []): string[] {
  return ldapSettingsIssues(valid(overrides), {
    plainLdapAllowed: (host) => allowListed.includes(host),
  }).map((issue) => issue.field);
}

describe('ldapSettingsIssues', () => {
  it('accepts ldaps://, ldap:// with StartTLS, and the defaults', () => {
    expect(fields({})).toEqual([]);
    expect(fields({ url: 'ldap://ldap.example.com', startTls: true })).toEqual([]);
    expect(valid()).toMatchObject({
      groupNameAttribute: 'cn',
      emailAttribute: 'mail',
      nameAttribute: 'cn',
      nestedGroups: false,
      startTls: false,
      allowInsecure: false,
      caCertificate: null,
    });
  });

  it('refuses plain ldap:// unless allow_insecure, and then to hosts the operator allow-listed only', () => {
    expect(fields({ url: 'ldap://ldap.example.com' })).toEqual(['url']);
    expect(fields({ url: 'ldap://ldap.example.com', allowInsecure: true })).toEqual([
      'allow_insecure',
    ]);
    expect(
      fields({ url: 'ldap://ldap.example.com', allowInsecure: true }, ['ldap.example.com']),
    ).toEqual([]);
  });

  it.each([
    ['url', { url: 'ldaps://ldap.example.com\r\n' }],
    ['bind_dn', { bindDn: 'cn=service\n,dc=example,dc=com' }],
    ['bind_password', { bindPassword: 'secret\r\nFLUSHALL\r\n' }],
    ['bind_password', { bindPassword: 'tab\there' }],
    ['user_base_dn', { userBaseDn: 'ou=people,dc=example,dc=com\u0000' }],
    ['user_filter', { userFilter: '(mail={username})\u007f' }],
    ['group_base_dn', { groupBaseDn: 'ou=groups\u0085,dc=example', groupFilter: '(member={dn})' }],
    ['group_filter', { groupBaseDn: 'ou=groups,dc=example', groupFilter: '(member={dn})\n' }],
    ['email_attribute', { emailAttribute: 'mail\r' }],
    ['ca_certificate', { caCertificate: '-----BEGIN CERTIFICATE-----\u0007' }],
  ] as [string, Partial<LdapSettings>][])(
    'refuses control characters in %s, which would go onto the wire as they are',
    (field, overrides) => {
      expect(fields(overrides)).toEqual([field]);
    },
  );

  it.each([
    'https://ldap.example.com',
    'not a url',
    'ldaps://',
    'ldaps://user:pw@ldap.example.com',
    'ldaps://ldap.example.com/dc=example,dc=com',
    'ldaps://ldap.example.com?x',
  ])('refuses the url %j', (url) => {
    expect(fields({ url })).toContain('url');
  });

  it('refuses start_tls with ldaps://', () => {
    expect(fields({ startTls: true })).toEqual(['start_tls']);
  });

  it('accepts a PEM certificate (or a bundle) and refuses anything else', () => {
    expect(fields({ caCertificate: CERTIFICATE })).toEqual([]);
    expect(fields({ caCertificate: `${CERTIFICATE}\n${CERTIFICATE}` })).toEqual([]);
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    expect(
      fields({ caCertificate: key.export({ type: 'pkcs8', format: 'pem' }) as string }),
    ).toEqual(['ca_certificate']);
    const corrupt = CERTIFICATE.replace('MIIBkDCCATeg', 'MIIBkDCCAAAA');
    expect(fields({ caCertificate: corrupt })).toEqual(['ca_certificate']);
    expect(fields({ caCertificate: 'hello' })).toEqual(['ca_certificate']);
  });

  it('needs {username} in a parenthesised, parseable user_filter', () => {
    expect(fields({ userFilter: '(uid=alice)' })).toEqual(['user_filter']);
    expect(fields({ userFilter: 'uid={username}' })).toEqual(['user_filter']);
    expect(fields({ userFilter: '(&(uid={username})' })).toEqual(['user_filter']);
    expect(fields({ userFilter: '(uid={username})' })).toEqual([]);
    expect(fields({ userFilter: '(uid={username})(cn=x)' })).toEqual(['user_filter']);
    expect(fields({ userFilter: '(uid={username}))' })).toEqual(['user_filter']);
  });

  it('needs {dn} in group_filter, and group_base_dn and group_filter together', () => {
    const groups = { groupBaseDn: 'ou=groups,dc=example,dc=com' };
    expect(fields({ ...groups, groupFilter: '(member={dn})' })).toEqual([]);
    expect(fields({ ...groups, groupFilter: '(member=cn=x)' })).toEqual(['group_filter']);
    expect(fields({ ...groups, groupFilter: '(member={dn}' })).toEqual(['group_filter']);
    expect(fields(groups)).toEqual(['group_filter']);
    expect(fields({ groupFilter: '(member={dn})' })).toEqual(['group_base_dn']);
  });

  it('needs distinguished names that parse', () => {
    expect(fields({ bindDn: '' })).toEqual(['bind_dn']);
    expect(fields({ bindDn: 'service' })).toEqual(['bind_dn']);
    expect(fields({ userBaseDn: 'ou=people,dc=example,,dc=com' })).toEqual(['user_base_dn']);
    expect(fields({ userBaseDn: 'ou=a"b,dc=com' })).toEqual(['user_base_dn']);
    expect(fields({ groupBaseDn: '=groups', groupFilter: '(member={dn})' })).toEqual([
      'group_base_dn',
    ]);
  });

  it('refuses an empty service password (an anonymous bind) and bad attribute names', () => {
    expect(fields({ bindPassword: '' })).toEqual(['bind_password']);
    expect(fields({ groupNameAttribute: 'c n' })).toEqual(['group_name_attribute']);
    expect(fields({ emailAttribute: '' })).toEqual(['email_attribute']);
    expect(fields({ nameAttribute: 'displayName;lang-en' })).toEqual([]);
  });
});

describe('fillFilterTemplate', () => {
  it('escapes filter syntax (RFC 4515) in the value', () => {
    expect(fillFilterTemplate('(uid={username})', '{username}', '*)(uid=*))(|(uid=*')).toBe(
      '(uid=\\2a\\29\\28uid=\\2a\\29\\29\\28|\\28uid=\\2a)',
    );
    expect(fillFilterTemplate('(uid={username})', '{username}', 'a\\b\0')).toBe('(uid=a\\5cb\\00)');
  });

  it('keeps $ patterns literal and fills every placeholder', () => {
    expect(fillFilterTemplate('(|(uid={username})(mail={username}))', '{username}', "$&$'")).toBe(
      "(|(uid=$&$')(mail=$&$'))",
    );
  });
});
