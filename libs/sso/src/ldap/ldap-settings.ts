import { X509Certificate } from 'node:crypto';
import { freeTextIssue, singleLineTextIssue } from '#common';
import { ldapLibrary } from '../libraries.js';
import { InvalidDnError, parseDn } from './distinguished-name.js';

/** How one organisation's directory is reached and read (an `ldap` SSO connection). */
export interface LdapSettings {
  /** `ldaps://host[:port]`, or `ldap://` with startTls (plain only with allowInsecure). */
  url: string;
  startTls: boolean;
  /** Plain `ldap://` without StartTLS; only to a host on OUTBOUND_PRIVATE_ALLOWLIST. */
  allowInsecure: boolean;
  /** PEM: the only trust anchor when given; Node's root CAs otherwise. */
  caCertificate: string | null;
  /** The service account that searches the directory. */
  bindDn: string;
  bindPassword: string;
  userBaseDn: string;
  /** A filter template with `{username}`, e.g. `(mail={username})`. */
  userFilter: string;
  groupBaseDn: string | null;
  /** A filter template with `{dn}` (the user's DN), e.g. `(member={dn})`. */
  groupFilter: string | null;
  groupNameAttribute: string;
  nestedGroups: boolean;
  emailAttribute: string;
  nameAttribute: string;
}

/** The values a connection takes when it leaves them out. */
export const DEFAULT_LDAP_ATTRIBUTES = {
  startTls: false,
  allowInsecure: false,
  caCertificate: null,
  groupBaseDn: null,
  groupFilter: null,
  groupNameAttribute: 'cn',
  nestedGroups: false,
  emailAttribute: 'mail',
  nameAttribute: 'cn',
} as const satisfies Partial<LdapSettings>;

type RequiredLdapSettings = Pick<
  LdapSettings,
  'url' | 'bindDn' | 'bindPassword' | 'userBaseDn' | 'userFilter'
>;

/** Complete settings from the required fields and whichever optional ones are given. */
export function ldapSettings(input: RequiredLdapSettings & Partial<LdapSettings>): LdapSettings {
  return { ...DEFAULT_LDAP_ATTRIBUTES, ...input };
}

/** A problem with one field, named as the API names it (snake_case). */
export interface LdapSettingsIssue {
  field: string;
  issue: string;
}

const ATTRIBUTE_DESCRIPTION = /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)+)(;[A-Za-z0-9-]+)*$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Static checks of LDAP settings, without contacting the directory.
 * `plainLdapAllowed` says whether a host may be reached with plain
 * (unencrypted) LDAP. An empty list means the settings are usable.
 */
export function ldapSettingsIssues(
  input: LdapSettings,
  opts: { plainLdapAllowed: (host: string) => boolean },
): LdapSettingsIssue[] {
  const issues: LdapSettingsIssue[] = [];
  const add = (field: string, issue: string) => issues.push({ field, issue });

  // Whatever is typed here is written onto the wire: a line break in a password
  // sent to a port that is not a directory (say, Redis's) would be a command there.
  // No DN, filter, password, URL or attribute name needs one; a PEM block is lines.
  for (const [field, value] of Object.entries(textFields(input))) {
    const issue = value === null ? null : singleLineTextIssue(value);
    if (issue !== null) add(field, issue);
  }
  const pemIssue = input.caCertificate === null ? null : freeTextIssue(input.caCertificate);
  if (pemIssue !== null) add('ca_certificate', pemIssue);
  if (issues.length > 0) return issues;

  transportIssues(input, opts.plainLdapAllowed, add);
  if (input.caCertificate !== null) {
    const issue = certificateIssue(input.caCertificate);
    if (issue !== null) add('ca_certificate', issue);
  }

  const dnIssue = (field: string, dn: string) => {
    const issue = distinguishedNameIssue(dn);
    if (issue !== null) add(field, issue);
  };
  dnIssue('bind_dn', input.bindDn);
  if (input.bindPassword === '') {
    add('bind_password', 'is empty: an empty password is an anonymous bind');
  }
  dnIssue('user_base_dn', input.userBaseDn);
  const userFilterIssue = filterTemplateIssue(input.userFilter, '{username}');
  if (userFilterIssue !== null) add('user_filter', userFilterIssue);

  if ((input.groupBaseDn === null) !== (input.groupFilter === null)) {
    const missing = input.groupBaseDn === null ? 'group_base_dn' : 'group_filter';
    add(missing, 'is required with the other (or leave both out to read memberOf)');
  }
  if (input.groupBaseDn !== null) dnIssue('group_base_dn', input.groupBaseDn);
  if (input.groupFilter !== null) {
    const issue = filterTemplateIssue(input.groupFilter, '{dn}');
    if (issue !== null) add('group_filter', issue);
  }

  const attributes = {
    group_name_attribute: input.groupNameAttribute,
    email_attribute: input.emailAttribute,
    name_attribute: input.nameAttribute,
  };
  for (const [field, attribute] of Object.entries(attributes)) {
    if (!ATTRIBUTE_DESCRIPTION.test(attribute)) add(field, 'is not an LDAP attribute name');
  }
  return issues;
}

/** The one-line text fields, by their API names. */
function textFields(input: LdapSettings): Record<string, string | null> {
  return {
    url: input.url,
    bind_dn: input.bindDn,
    bind_password: input.bindPassword,
    user_base_dn: input.userBaseDn,
    user_filter: input.userFilter,
    group_base_dn: input.groupBaseDn,
    group_filter: input.groupFilter,
    group_name_attribute: input.groupNameAttribute,
    email_attribute: input.emailAttribute,
    name_attribute: input.nameAttribute,
  };
}

function transportIssues(
  input: LdapSettings,
  plainLdapAllowed: (host: string) => boolean,
  add: (field: string, issue: string) => void,
): void {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    add('url', 'is not a URL');
    return;
  }
  if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') {
    add('url', 'must start with ldaps:// (or ldap:// with start_tls)');
    return;
  }
  if (url.hostname === '') add('url', 'has no host');
  if (url.username !== '' || url.password !== '' || !['', '/'].includes(url.pathname)) {
    add('url', 'must be only scheme, host and port (credentials and DNs go in their own fields)');
  }
  if (url.search !== '' || url.hash !== '') add('url', 'must not have a query or fragment');

  if (url.protocol === 'ldaps:') {
    if (input.startTls) add('start_tls', 'applies to ldap:// only (ldaps:// is TLS already)');
    return;
  }
  if (input.startTls) return;
  if (!input.allowInsecure) {
    add('url', 'ldap:// without start_tls sends passwords in clear: use ldaps:// or start_tls');
  } else if (!plainLdapAllowed(url.hostname)) {
    add(
      'allow_insecure',
      'plain LDAP goes only to a host the operator put on OUTBOUND_PRIVATE_ALLOWLIST: use ldaps:// or start_tls',
    );
  }
}

function certificateIssue(pem: string): string | null {
  const blocks = pem.match(PEM_CERTIFICATE);
  if (blocks === null) return 'is not a PEM certificate (-----BEGIN CERTIFICATE-----)';
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      return 'does not parse as an X.509 certificate';
    }
  }
  return null;
}

function distinguishedNameIssue(dn: string): string | null {
  if (dn.trim() === '') return 'is empty';
  try {
    parseDn(dn);
    return null;
  } catch (error) {
    if (error instanceof InvalidDnError) return `is not a distinguished name: ${error.message}`;
    throw error;
  }
}

function filterTemplateIssue(template: string, placeholder: string): string | null {
  if (!template.includes(placeholder)) return `must contain ${placeholder}`;
  const trimmed = template.trim();
  if (!isOneParenthesisedFilter(trimmed)) {
    return 'must be one parenthesised LDAP filter, e.g. (uid={username})';
  }
  try {
    ldapLibrary().FilterParser.parseString(fillFilterTemplate(trimmed, placeholder, 'sample'));
    return null;
  } catch (error) {
    return `is not a valid LDAP filter: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Balanced parentheses closing only at the end. ldapts' parser forgives a missing `)`;
 * we do not. In a filter every `(` and `)` is syntax (a literal one is written \28 or \29).
 */
function isOneParenthesisedFilter(filter: string): boolean {
  let depth = 0;
  for (let index = 0; index < filter.length; index++) {
    if (filter[index] === '(') depth++;
    else if (filter[index] === ')') depth--;
    else continue;
    if (depth < 0 || (depth === 0 && index !== filter.length - 1)) return false;
  }
  return depth === 0 && filter.startsWith('(');
}

/**
 * Puts `value`, escaped as RFC 4515 requires, where `placeholder` stands. A replacer
 * function, not a replacement string: `$&` or `$'` in what someone typed stay literal.
 */
export function fillFilterTemplate(template: string, placeholder: string, value: string): string {
  const escaped = ldapLibrary().Filter.escape(value);
  return template.replaceAll(placeholder, () => escaped);
}
