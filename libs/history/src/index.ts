export * from './history-case.js';
export * from './history-events.js';
export * from './history-rows.js';
export * from './history.module.js';
export * from './history.service.js';
