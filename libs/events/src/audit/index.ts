export * from './audit-actions.js';
export * from './audit-log.js';
export * from './audit-event.entity.js';
export * from './audit-events.repository.js';
export * from './audit-retention.js';
