// The 1.x surface of the library, kept so 1.x code runs unchanged on 2.0 while it migrates
// (`sas migrate check` lists each call and its 2.0 form; MIGRATION_RULES says how).
export { SasClient, type SasClientOptions } from './sas-client.js';
export { verifySignature } from './verify-signature.js';
export { MIGRATION_RULES, type MigrationRule } from './migration-rules.js';
