/**
 * The service-provider side of SAML 2.0 sign-in, one connection at a time:
 *
 *   const idp = parseIdpMetadata(xml);                        // SamlConfigError names the field
 *   const sp = new SamlServiceProvider({ spEntityId, acsUrl, idpEntityId: idp.entityId,
 *     idpSsoUrl: idp.ssoUrl, idpCertificates: idp.certificates, spPrivateKey, spCertificate,
 *     allowIdpInitiated: false }, new RedisSamlStores(redis, `${prefix}:saml:`));
 *   const { url } = await sp.authorizeUrl(interactionUid);    // redirect the browser there
 *   const identity = await sp.consumePostResponse(req.body);  // at the ACS: SamlSignInError.code
 *
 * serviceProviderMetadata() is what an IdP administrator imports.
 */
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
