export * from './signatures.js';
export * from './retry-schedule.js';
export * from './destination-policy.js';
export * from './envelopes.js';
export * from './webhooks.service.js';
export * from './webhook-deliverer.js';
export * from './event-retention.js';
export * from './webhooks.module.js';
