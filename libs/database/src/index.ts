export * from './entities/index.js';
export * from './data-source.js';
export * from './database.module.js';
export * from './schema-drift.js';
export * from './sql.js';
export * from './keyset-page.js';
export * from './wake-up-pump.js';
export * from './sequenced-transition.js';
