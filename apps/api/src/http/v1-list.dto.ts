import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

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
