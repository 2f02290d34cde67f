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
