// LDAP directories as a sign-in source (issue 17): settings checks and search-then-bind on ldapts.
export { InvalidDnError, parseDn, type ParsedDn } from './distinguished-name.js';
export { LDAP_TIMEOUT_MS } from './ldap-connection.js';
export {
  LdapDirectory,
  MAX_USERNAME_LENGTH,
  type LdapDirectoryOptions,
  type LdapIdentity,
  type LdapTestResult,
  type LdapTestStep,
} from './ldap-directory.js';
export { LdapSignInError, type LdapSignInErrorCode } from './ldap-errors.js';
export { NESTED_GROUP_MAX_COUNT, NESTED_GROUP_MAX_DEPTH } from './ldap-groups.js';
export {
  DEFAULT_LDAP_ATTRIBUTES,
  ldapSettings,
  ldapSettingsIssues,
  type LdapSettings,
  type LdapSettingsIssue,
} from './ldap-settings.js';
