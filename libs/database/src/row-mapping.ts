/**
 * The columns of a table in one order, each with the entity field it maps to,
 * for libs that use plain SQL: the insert, the select list and both
 * directions of the mapping come from one table of names. Columns listed as
 * JSON are written with JSON.stringify (node-postgres would write a JS
 * array as a PostgreSQL array).
 */
export interface RowMapping<E, C extends string> {
  columns: readonly C[];
  /** `col_a, col_b, …`, for SELECT lists. */
  selectList: string;
  /** `INSERT INTO table (…) VALUES ($1, …)` with every column. */
  insert: string;
  fromRow(row: Record<C, unknown>): E;
  toRow(entity: E): unknown[];
  /** A value of `column` as a statement binds it (JSON for a JSON column); throws for a column it does not map. */
  bound(column: string, value: unknown): unknown;
  /** The mapping of some of the columns, to an entity `S` that has their fields. */
  only<S>(columns: readonly C[]): RowMapping<S, C>;
}

export function rowMapping<E, C extends string>(
  table: string,
  fields: Record<C, keyof E & string>,
  jsonColumns: readonly C[] = [],
): RowMapping<E, C> {
  const columns = Object.keys(fields) as C[];
  const json = new Set<C>(jsonColumns);
  const encode = (column: C, value: unknown) =>
    json.has(column) && value !== null ? JSON.stringify(value) : value;
  return {
    columns,
    selectList: columns.join(', '),
    insert: `INSERT INTO ${table} (${columns.join(', ')})
      VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
    fromRow(row) {
      const entity: Record<string, unknown> = {};
      for (const column of columns) entity[fields[column]] = row[column];
      return entity as E;
    },
    toRow(entity) {
      return columns.map((column) => encode(column, entity[fields[column]]));
    },
    bound(column, value) {
      if (!(column in fields)) throw new Error(`${table} has no column ${column} in its mapping`);
      return encode(column as C, value);
    },
    only<S>(picked: readonly C[]) {
      const some = Object.fromEntries(picked.map((column) => [column, fields[column]]));
      return rowMapping<S, C>(
        table,
        some as unknown as Record<C, keyof S & string>,
        jsonColumns.filter((column) => picked.includes(column)),
      );
    },
  };
}
