export * from './tenant-owned.js';
export * from './json.js';
