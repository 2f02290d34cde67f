export * from './analytics.module.js';
export * from './analytics-summary.js';
export * from './case-baselines.js';
export * from './case-tally.js';
export * from './history-analytics.service.js';
export * from './history-trends.js';
export * from './rollup-query.js';
