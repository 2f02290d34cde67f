export * from './csv-rows.js';
export * from './history-import.service.js';
export * from './import-body.js';
export * from './import-report.js';
export * from './import-row.js';
export * from './iso-timestamp.js';
