export * from './settings.js';
export * from './config.module.js';
export * from './settings-reference.js';
