import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IntegerQuery } from './query-params.js';

/**
 * The v1 list shape (`results`, `total`, `limit`, `offset`, `has_more`) for an
 * item type. Extend it under a name of its own: the name is the schema's.
 */
export function V1List<T>(item: Type<T>) {
  class V1ListDto {
    @ApiProperty({ type: [item] })
    results!: T[];

    @ApiProperty({ type: 'integer' })
    total!: number;

    @ApiProperty({ type: 'integer' })
    limit!: number;

    @ApiProperty({ type: 'integer' })
    offset!: number;

    @ApiProperty()
    has_more!: boolean;
  }
  return V1ListDto;
}

export const DEFAULT_V1_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;
/** Deepest v1 page: OFFSET reads and drops every row before it; past this, use a v2 list and its cursor. */
export const MAX_LIST_OFFSET = 10_000;

/**
 * Query of a version 1 list: `limit` (default 20, at most 100) and `offset`
 * (at most 10,000). A list with filters extends it.
 */
export class V1ListQueryDto {
  @IntegerQuery({ minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_V1_LIMIT })
  limit?: number;

  @IntegerQuery({
    minimum: 0,
    maximum: MAX_LIST_OFFSET,
    default: 0,
    description: `Items to skip, at most ${MAX_LIST_OFFSET.toLocaleString('en')}; page further with the v2 list's cursor`,
  })
  offset?: number;
}

/** Loads one `limit`/`offset` page (defaults applied) and shapes it as the v1 list. */
export async function v1Page<Row, Item>(
  query: { limit?: number | undefined; offset?: number | undefined },
  load: (page: { limit: number; offset: number }) => Promise<{ records: Row[]; total: number }>,
  toItem: (row: Row) => Item,
) {
  const limit = query.limit ?? DEFAULT_V1_LIMIT;
  const offset = query.offset ?? 0;
  const { records, total } = await load({ limit, offset });
  return {
    results: records.map(toItem),
    total,
    limit,
    offset,
    has_more: offset + records.length < total,
  };
}
