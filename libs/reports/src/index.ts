export * from './csv-cells.js';
export * from './report.js';
export * from './report-runner.js';
export * from './reports.module.js';
export * from './reports.service.js';
