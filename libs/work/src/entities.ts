import { BatchEntity } from './batches/batch.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const WORK_ENTITIES = [BatchEntity];
