export * from './csv-cells.js';
export { MAX_REPORT_BYTES } from './large-object-sink.js';
export * from './report.js';
export * from './report-runner.js';
export * from './reports.module.js';
export * from './reports.repository.js';
export * from './reports.service.js';
export * from './entities.js';
export * from './report.entity.js';
