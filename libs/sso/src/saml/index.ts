export { SamlConfigError, SamlSignInError, SAML_SIGN_IN_ERROR_CODES } from './errors.js';
export type { SamlSignInErrorCode } from './errors.js';
export { MAX_IDP_METADATA_LENGTH, parseIdpMetadata } from './idp-metadata.js';
export type { IdpMetadata } from './idp-metadata.js';
export { serviceProviderMetadata } from './sp-metadata.js';
export type { ServiceProviderMetadataOptions } from './sp-metadata.js';
export { SamlServiceProvider } from './service-provider.js';
export type { SamlServiceProviderOptions, SamlStores } from './service-provider.js';
export type { SamlIdentity } from './identity.js';
export { MAX_SAML_RESPONSE_BASE64_LENGTH } from './response-envelope.js';
export {
  RedisSamlReplayStore,
  RedisSamlRequestStore,
  RedisSamlStores,
  DEFAULT_REQUEST_TTL_MS,
} from './stores.js';
export type { SamlReplayStore, SamlRequestStore } from './stores.js';
export { certificateToPem } from './certificate.js';
