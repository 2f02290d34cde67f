export * from './queues.js';
export * from './redis.service.js';
export * from './redis-connections.js';
export * from './job-producer.js';
export * from './queue.module.js';
export * from './periodic-tasks.js';
export * from './dependency-outage.js';
export * from './redis-data-loss.js';
