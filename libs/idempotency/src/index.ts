export * from './idempotency-records.js';
export * from './idempotency.module.js';
