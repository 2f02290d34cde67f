export * from './api-key-format.js';
export * from './api-key.service.js';
export * from './api-keys.repository.js';
export * from './api-keys.module.js';
export * from './api-key-cache.js';
export * from './api-key.entity.js';
export * from './entities.js';
