export * from './idempotency-records.js';
export * from './idempotency-keys.repository.js';
export * from './idempotency.module.js';
export * from './idempotency-key.entity.js';
export * from './entities.js';
