export * from './analytics.module.js';
