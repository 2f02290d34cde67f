export * from './session-phase.js';
export * from './sessions.service.js';
export * from './session-runner.js';
export * from './session-scheduler.js';
export * from './sessions.module.js';
export * from './session-templates.service.js';
export * from './session-merger.js';
export * from './session-sweeper.js';
