export * from './token-constants.js';
export * from './secret-hash.js';
export * from './signing-keys.service.js';
export * from './access-tokens.js';
export * from './oauth-clients.service.js';
export * from './credentials.js';
export * from './identity-bootstrap.js';
export * from './auth.module.js';
