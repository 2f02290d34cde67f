export * from './organizations.service.js';
export * from './organizations.module.js';
