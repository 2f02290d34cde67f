export * from './dowsing.module.js';
export * from './dowsing.service.js';
export * from './dowsing-lists.service.js';
export * from './dowsing-events.js';
export * from './entities/dowsing-query.entity.js';
export * from './entities/dowsing-reading.entity.js';
export * from './entities.js';
