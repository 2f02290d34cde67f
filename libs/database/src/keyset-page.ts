import { In, type DataSource, type EntityTarget, type ObjectLiteral } from 'typeorm';
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
 * The conditions of a list and the values they compare against, as plain
 * SQL: `where.and(\`status = ${where.param(status)}\`)`. Values are always
 * bound parameters, never text in the statement.
 */
export class SqlConditions {
  private readonly clauses: string[] = [];

  constructor(readonly parameters: unknown[] = []) {}

  /** The placeholder of a new bound value. */
  param(value: unknown): string {
    this.parameters.push(value);
    return `$${this.parameters.length}`;
  }

  and(clause: string): this {
    this.clauses.push(clause);
    return this;
  }

  get sql(): string {
    return this.clauses.length === 0 ? 'TRUE' : this.clauses.map((c) => `(${c})`).join(' AND ');
  }

  clone(): SqlConditions {
    const copy = new SqlConditions([...this.parameters]);
    copy.clauses.push(...this.clauses);
    return copy;
  }
}

/** Runs one statement and returns its rows (`Sql#rows`, or TypeORM's `DataSource#query`). */
export type RunSql = (text: string, parameters: unknown[]) => Promise<unknown[]>;

export interface KeysetList<T> {
  /** A table with `id` and `created_at` columns. */
  table: string;
  /** Every condition of the list, the tenant's first. */
  where: SqlConditions;
  scope: KeysetScope;
  /** Reads the rows whose ids `idsSql` selects, newest first (one statement, or ids then rows). */
  readRows: (idsSql: string, parameters: unknown[]) => Promise<T[]>;
}

/**
 * A page of a list, newest first, after the row `afterId` (from the previous
 * page's cursor), ordered by `created_at, id` so it never uses OFFSET. The
 * anchor row is compared inside PostgreSQL: its microseconds would not
 * survive a round trip through a JavaScript Date. It is looked up within the
 * list's scope only, so a cursor made from another tenant's id behaves like
 * one naming no row at all and reveals nothing about it.
 *
 * Built to stay fast on millions of rows with any filter:
 * - the page's ids are chosen first, from the conditions alone, so a covering
 *   index (filtered columns INCLUDEd) answers them with an index-only scan;
 *   only the page's own rows are then read;
 * - the count stops at EXACT_COUNT_LIMIT + 1 rows, and beyond that the
 *   planner's estimate stands in;
 * - `before` comes from the cursor (it carries how many rows precede the
 *   next page) when the caller has it, so paging costs no count either.
 */
export async function keysetPage<T>(
  run: RunSql,
  list: KeysetList<T>,
  { afterId, before, perPage }: PageRequest,
): Promise<KeysetPage<T>> {
  assertIdentifier(list.table);
  const scope = Object.entries(list.scope);
  if (scope.length === 0) throw new Error('a keyset list needs a scope');
  scope.forEach(([column]) => assertIdentifier(column));
  const anchorOf = (where: SqlConditions) =>
    `(SELECT created_at, id FROM ${list.table} WHERE id = ${where.param(afterId)}${scope
      .map(([column, value]) => ` AND ${column} = ${where.param(value)}`)
      .join('')})`;

  const page = list.where.clone();
  if (afterId !== null) page.and(`(created_at, id) < ${anchorOf(page)}`);
  const idsSql = `SELECT id FROM ${list.table} WHERE ${page.sql}
    ORDER BY created_at DESC, id DESC LIMIT ${page.param(perPage + 1)}`;

  const [rows, { total, estimated }, rowsBefore] = await Promise.all([
    list.readRows(idsSql, page.parameters),
    countMatching(run, list),
    before !== null || afterId === null ? Promise.resolve(before ?? 0) : countBefore(),
  ]);
  return { rows, total, totalEstimated: estimated, before: rowsBefore };

  async function countBefore(): Promise<number> {
    const preceding = list.where.clone();
    preceding.and(`(created_at, id) >= ${anchorOf(preceding)}`);
    const [{ count }] = (await run(
      `SELECT count(*)::int AS count FROM ${list.table} WHERE ${preceding.sql}`,
      preceding.parameters,
    )) as [{ count: number }];
    return count;
  }
}

/** Rows matching `where`: exact up to EXACT_COUNT_LIMIT, else the planner's estimate (`estimated`). */
export async function countMatching(
  run: RunSql,
  { table, where }: { table: string; where: SqlConditions },
): Promise<{ total: number; estimated: boolean }> {
  const [{ count }] = (await run(
    `SELECT count(*)::int AS count FROM (SELECT 1 FROM ${table} WHERE ${where.sql}
      LIMIT ${EXACT_COUNT_LIMIT + 1}) AS matching`,
    where.parameters,
  )) as [{ count: number }];
  if (count <= EXACT_COUNT_LIMIT) return { total: count, estimated: false };
  return {
    total: Math.max(EXACT_COUNT_LIMIT + 1, await plannedRows(run, { table, where })),
    estimated: true,
  };
}

/** The planner's estimate of the rows matching `where` (EXPLAIN: planned, not run). */
export async function plannedRows(
  run: RunSql,
  { table, where }: { table: string; where: SqlConditions },
): Promise<number> {
  const [{ 'QUERY PLAN': plan }] = (await run(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${table} WHERE ${where.sql}`,
    where.parameters,
  )) as [{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }];
  return plan[0].Plan['Plan Rows'];
}

/**
 * `readRows` for a TypeORM entity: the page's ids, then their entities, in
 * the page's order. (Session lists read rows in the same statement instead.)
 */
export function readEntities<T extends ObjectLiteral & { id: string }>(
  dataSource: DataSource,
  entity: EntityTarget<T>,
): KeysetList<T>['readRows'] {
  return async (idsSql, parameters) => {
    const ids = ((await dataSource.query(idsSql, parameters)) as { id: string }[]).map((r) => r.id);
    if (ids.length === 0) return [];
    const found = await dataSource.getRepository(entity).findBy({ id: In(ids) } as never);
    const byId = new Map(found.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id)).filter((row): row is T => row !== undefined);
  };
}

/** Table and column names are the code's own, never input; this keeps it so. */
function assertIdentifier(name: string): void {
  if (!/^[a-z_]+$/.test(name)) throw new Error(`not an identifier: ${name}`);
}
