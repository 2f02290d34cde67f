export * from './settings.js';
export * from './config.module.js';
