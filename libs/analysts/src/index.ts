// People do the work (issue 18, docs/analysts.md): members and their roles, blind tasking, submissions, the target pool, blind judging and track records.
export * from './members/index.js';
export * from './targets/index.js';
export * from './sketches/index.js';
export * from './tasking/index.js';
export * from './judging/index.js';
export * from './analysts.module.js';
export * from './entities.js';
