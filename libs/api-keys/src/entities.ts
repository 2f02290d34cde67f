import { ApiKeyEntity } from './api-key.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const API_KEY_ENTITIES = [ApiKeyEntity];
