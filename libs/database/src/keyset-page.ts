import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

export interface KeysetPage<T> {
  /** Up to `perPage + 1` rows, newest first; the extra row means there is a next page. */
  rows: T[];
  total: number;
  /** Rows before this page. */
  before: number;
}

/**
 * A page of a query, newest first, after the row `afterId` (from the previous
 * page's cursor), ordered by `created_at, id` so it never uses OFFSET. The
 * anchor row is compared inside PostgreSQL: its microseconds would not
 * survive a round trip through a JavaScript Date.
 */
export async function keysetPage<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  afterId: string | null,
  perPage: number,
): Promise<KeysetPage<T>> {
  const alias = query.alias;
  const table = query.expressionMap.mainAlias!.metadata.tableName;
  const key = `(${alias}.created_at, ${alias}.id)`;
  const anchor = `(SELECT created_at, id FROM ${table} WHERE id = :afterId)`;
  const [rows, total, before] = await Promise.all([
    (afterId === null ? query.clone() : query.clone().andWhere(`${key} < ${anchor}`, { afterId }))
      .orderBy(`${alias}.created_at`, 'DESC')
      .addOrderBy(`${alias}.id`, 'DESC')
      .take(perPage + 1)
      .getMany(),
    query.clone().getCount(),
    afterId === null
      ? Promise.resolve(0)
      : query.clone().andWhere(`${key} >= ${anchor}`, { afterId }).getCount(),
  ]);
  return { rows, total, before };
}
