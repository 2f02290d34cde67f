export * from './sso-connection.js';
export {
  SsoConnectionsService,
  ssoConnectionPublicId,
  type SsoConnectionInput,
  type SsoTestReport,
} from './sso-connections.service.js';
export type { LdapInput, SamlInput } from './connection-config.js';
export { IdpMetadataRefresh } from './metadata-refresh.js';
