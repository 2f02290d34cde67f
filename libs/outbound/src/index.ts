export * from './destination-policy.js';
export * from './outbound-agent.js';
export * from './transport-errors.js';
export * from './outbound-fetcher.js';
export * from './outbound.module.js';
export * from './outbound-sockets.js';
