import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { Tenant } from '#common';

/** Up to this many matching rows are counted; above it, `total` is PostgreSQL's estimate. */
export const EXACT_COUNT_LIMIT = 1000;

/** Which page of a keyset list: after which row, how many rows precede it (when known), how many per page. */
export interface PageRequest {
  afterId: string | null;
  before: number | null;
  perPage: number;
}

export interface KeysetPage<T> {
  /** Up to `perPage + 1` rows, newest first; the extra row means there is a next page. */
  rows: T[];
  /** Matching rows: exact up to EXACT_COUNT_LIMIT, else estimated (`totalEstimated`). */
  total: number;
  totalEstimated?: boolean;
  /** Rows before this page. */
  before: number;
}

/**
 * Columns and values that every row of a list shares, and so must the row a
 * cursor names: the tenant (`organization_id`, `mode`) or the parent (`webhook_id`).
 */
export type KeysetScope = Record<string, string>;

export function tenantScope(tenant: Tenant): KeysetScope {
  return { organization_id: tenant.organizationId, mode: tenant.mode };
}

/**
 * A page of a query, newest first, after the row `afterId` (from the previous
 * page's cursor), ordered by `created_at, id` so it never uses OFFSET. The
 * anchor row is compared inside PostgreSQL: its microseconds would not
 * survive a round trip through a JavaScript Date. It is looked up within
 * `scope` only, so a cursor made from another tenant's id behaves like one
 * naming no row at all and reveals nothing about it.
 *
 * Built to stay fast on millions of rows with any filter:
 * - the page's ids are chosen first, from the filters alone, so a covering
 *   index (filtered columns INCLUDEd) answers them with an index-only scan;
 *   only the page's own rows are then read from the table;
 * - the count stops at EXACT_COUNT_LIMIT + 1 rows, and beyond that the
 *   planner's estimate stands in;
 * - `before` comes from the cursor (it carries how many rows precede the
 *   next page) when the caller has it, so paging costs no count either.
 */
export async function keysetPage<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  { afterId, before, perPage }: PageRequest,
  scope: KeysetScope,
  /** Reads the rows whose ids the given SQL selects, newest first; default: the query builder's entities. */
  readRows?: (idsSql: string, parameters: unknown[]) => Promise<T[]>,
): Promise<KeysetPage<T>> {
  const alias = query.alias;
  const table = query.expressionMap.mainAlias!.metadata.tableName;
  const key = `(${alias}.created_at, ${alias}.id)`;
  const scopeColumns = Object.keys(scope);
  if (scopeColumns.length === 0 || scopeColumns.some((column) => !/^[a-z_]+$/.test(column))) {
    throw new Error(`keysetPage needs a scope of column names, got ${JSON.stringify(scope)}`);
  }
  const anchorParameters = Object.fromEntries(
    scopeColumns.map((column) => [`anchor_${column}`, scope[column]]),
  );
  const anchor = `(SELECT created_at, id FROM ${table} WHERE id = :afterId ${scopeColumns
    .map((column) => `AND ${column} = :anchor_${column}`)
    .join(' ')})`;
  const ids = (
    afterId === null
      ? query.clone()
      : query.clone().andWhere(`${key} < ${anchor}`, { afterId, ...anchorParameters })
  )
    .select(`${alias}.id`)
    .orderBy(`${alias}.created_at`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .limit(perPage + 1);
  const [rows, { total, estimated }, rowsBefore] = await Promise.all([
    readRows
      ? readRows(...ids.getQueryAndParameters())
      : query
          .clone()
          .andWhere(`${alias}.id IN (${ids.getQuery()})`)
          .setParameters(ids.getParameters())
          .orderBy(`${alias}.created_at`, 'DESC')
          .addOrderBy(`${alias}.id`, 'DESC')
          .getMany(),
    countMatching(query),
    before !== null || afterId === null
      ? Promise.resolve(before ?? 0)
      : query
          .clone()
          .andWhere(`${key} >= ${anchor}`, { afterId, ...anchorParameters })
          .getCount(),
  ]);
  return { rows, total, totalEstimated: estimated, before: rowsBefore };
}

async function countMatching<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
): Promise<{ total: number; estimated: boolean }> {
  const [sql, parameters] = query
    .clone()
    .select('1')
    .orderBy()
    .limit(EXACT_COUNT_LIMIT + 1)
    .getQueryAndParameters();
  const [{ count }] = (await query.connection.query(
    `SELECT count(*)::int AS count FROM (${sql}) AS matching`,
    parameters,
  )) as [{ count: number }];
  if (count <= EXACT_COUNT_LIMIT) return { total: count, estimated: false };
  const [plainSql, plainParameters] = query.clone().select('1').orderBy().getQueryAndParameters();
  const [{ 'QUERY PLAN': plan }] = (await query.connection.query(
    `EXPLAIN (FORMAT JSON) ${plainSql}`,
    plainParameters,
  )) as [{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }];
  return { total: Math.max(EXACT_COUNT_LIMIT + 1, plan[0].Plan['Plan Rows']), estimated: true };
}
