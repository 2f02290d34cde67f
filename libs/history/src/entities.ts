/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const HISTORY_ENTITIES: (new () => object)[] = [];
