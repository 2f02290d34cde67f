export * from './catalogue.js';
export * from './envelope.js';
export * from './event-log.js';
export * from './event-reader.js';
export * from './system-notices.js';
export * from './event-dispatcher.js';
export * from './outbox-relay.js';
export * from './events.module.js';
