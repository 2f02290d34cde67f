import { IdempotencyKeyEntity } from './idempotency-key.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const IDEMPOTENCY_ENTITIES = [IdempotencyKeyEntity];
