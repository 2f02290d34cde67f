export * from './sso-connection.js';
export { SsoConnectionsService, ssoConnectionPublicId } from './sso-connections.service.js';
export type { LdapInput, SamlInput, SsoConnectionInput } from './connection-config.js';
export { IdpMetadataRefresh } from './metadata-refresh.js';
export type { SsoTestReport } from './connection-test-report.js';
export { DomainVerificationRecheck, DomainVerifier } from './domain-verifier.js';
export { verificationRecord, type DomainClaim } from './domain-claims.js';
export { scopesOfGroups } from './group-scopes.js';
