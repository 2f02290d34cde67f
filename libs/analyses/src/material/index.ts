export * from './material-item.js';
export * from './reference-material-reader.js';
export * from './reference-material.module.js';
