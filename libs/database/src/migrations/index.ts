import { Initial1763856000000 } from './1763856000000-initial.js';

/** Every migration, in order. Listed explicitly: ESM builds have no directory globbing. */
export const MIGRATIONS = [Initial1763856000000];
