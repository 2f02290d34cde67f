/**
 * The type of a jsonb column. Deliberately loose: TypeORM's deep-partial
 * types recurse without end on a precise recursive JSON type. Mappers at the
 * edges give the contents their real types.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonObject = Record<string, any>;
