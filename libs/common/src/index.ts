export * from './ids.js';
export * from './errors.js';
export * from './scopes.js';
export * from './tenancy.js';
export * from './session-vocabulary.js';
export * from './sealed-secrets.js';
export * from './canonical-json.js';
export * from './log-serializers.js';
