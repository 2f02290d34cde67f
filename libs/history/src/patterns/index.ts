export * from './history-patterns.js';
export * from './history-patterns.service.js';
