export * from './reports.module.js';
