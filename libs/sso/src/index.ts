// Enterprise single sign-on (issue 17): LDAP directories and SAML 2.0 identity providers per organisation.
export * from './ldap/index.js';
export * from './saml/index.js';
export * from './connections/index.js';
export * from './sso.module.js';
export {
  SsoSignInService,
  type PendingSamlSignIn,
  type SsoSignInResult,
} from './sign-in/sso-sign-in.service.js';
export { samlEndpoints } from './sign-in/saml-sign-in.js';
export * from './entities.js';
