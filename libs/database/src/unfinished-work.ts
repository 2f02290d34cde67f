import type { Queryable } from './connection.js';

/**
 * Which rows are unfinished work: `SELECT <columns> FROM <table> WHERE <where>`
 * (a condition without parameters); read in (`orderBy`, id) order, `orderBy`
 * a timestamptz column. With `changedBefore` (a timestamptz column), only
 * rows it dates before recovery began, by the database's clock, whatever
 * page they are on: a row changed since is being run by something. The
 * pieces are the owning lib's repository's; none is input.
 */
export interface UnfinishedQuery {
  columns: string;
  table: string;
  where: string;
  orderBy: string;
  changedBefore?: string;
}

/** Where the next page begins: the last row's id and ordering column, as text to the microsecond. */
export interface UnfinishedPosition {
  id: string;
  position: string;
}

/**
 * Reads the rows `query` describes a keyset page at a time, each row with
 * its `position`, for a recovery after Redis lost its data
 * (`requeueLostWork`, #queue). Table-agnostic: a lib's repository gives
 * the statement's pieces for its own table.
 */
export function unfinishedWorkPages<Row extends UnfinishedPosition>(
  on: Queryable,
  query: UnfinishedQuery,
): (after: UnfinishedPosition | null, pageSize: number) => Promise<Row[]> {
  const { columns, table, orderBy, changedBefore } = query;
  let cutOff: Promise<unknown[]> | null = null;
  return async (after, pageSize) => {
    let where = query.where;
    const parameters: unknown[] = [];
    if (changedBefore !== undefined) {
      // The database's clock when the first page was read, the same for every page.
      cutOff ??= on
        .rows<{ now: string }>('SELECT now()::text AS now', [])
        .then(([row]) => [row!.now]);
      parameters.push(...(await cutOff));
      where = `(${where}) AND ${changedBefore} < $1::timestamptz`;
    }
    const [position, id, limit] = [1, 2, 3].map((i) => `$${parameters.length + i}`);
    return on.rows<Row>(
      `SELECT ${columns}, ${orderBy}::text AS position FROM ${table}
     WHERE (${where})
       AND (${position}::timestamptz IS NULL OR (${orderBy}, id) > (${position}::timestamptz, ${id}::uuid))
     ORDER BY ${orderBy}, id LIMIT ${limit}`,
      [...parameters, after?.position ?? null, after?.id ?? null, pageSize],
    );
  };
}
