export * from './lsn.js';
export * from './read-replicas.js';
export * from './write-positions.js';
