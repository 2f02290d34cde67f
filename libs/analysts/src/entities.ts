/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const ANALYST_ENTITIES: (new () => object)[] = [];
