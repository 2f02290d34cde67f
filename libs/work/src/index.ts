export * from './batches/batch.entity.js';
export * from './batches/batch-records.js';
export * from './batches/batches.repository.js';
export * from './entities.js';
export * from './work.module.js';
