export * from './organizations.service.js';
export * from './organizations.module.js';
export * from './organization-limits.js';
export * from './organization-limits.cache.js';
export * from './operator-notices.js';
export * from './organization.entity.js';
export * from './entities.js';
export * from './concurrent-work-limit.js';
