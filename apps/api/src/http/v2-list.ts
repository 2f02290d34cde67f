import type { Type as ClassType } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { AppError, parsePublicId, toPublicId, type IdKind } from '#common';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;
const PER_PAGE = { message: `must be an integer between 1 and ${MAX_PER_PAGE}` };

/** Query of a version 2 list: `per_page` and the `cursor` of the previous page. */
export class V2ListQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PER_PAGE,
    default: DEFAULT_PER_PAGE,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt(PER_PAGE)
  @Min(1, PER_PAGE)
  @Max(MAX_PER_PAGE, PER_PAGE)
  // The validation pipe builds the query with `new`, so an absent per_page takes the default.
  per_page: number = DEFAULT_PER_PAGE;

  @ApiPropertyOptional({ description: 'The `next_cursor` of the previous page' })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'is not a cursor this service issued' })
  cursor?: string;
}

export class PaginationDto {
  @ApiProperty({ type: 'integer' })
  page!: number;

  @ApiProperty({ type: 'integer' })
  per_page!: number;

  @ApiProperty({ type: 'integer' })
  total!: number;

  @ApiProperty({ type: 'integer' })
  total_pages!: number;

  @ApiProperty()
  has_next!: boolean;

  @ApiProperty()
  has_prev!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last',
  })
  next_cursor!: string | null;
}

/** The version 2 list shape (`data`, `pagination`) for an item type; extend it under a name of its own. */
export function V2List<T>(item: ClassType<T>) {
  class V2ListDto {
    @ApiProperty({ type: [item] })
    data!: T[];

    @ApiProperty({ type: PaginationDto })
    pagination!: PaginationDto;
  }
  return V2ListDto;
}

/**
 * One keyset page as the list shape wants it. `rows` holds up to one row
 * more than a page (that extra row says there is a next page); `before` is
 * how many rows precede the page.
 */
export function v2Page<Row extends { id: string }, Item>(
  kind: IdKind,
  page: { rows: Row[]; total: number; before: number },
  perPage: number,
  toItem: (row: Row) => Item,
): { data: Item[]; pagination: PaginationDto } {
  const hasNext = page.rows.length > perPage;
  const rows = page.rows.slice(0, perPage);
  const number = Math.floor(page.before / perPage) + 1;
  return {
    data: rows.map(toItem),
    pagination: {
      page: number,
      per_page: perPage,
      total: page.total,
      total_pages: Math.max(1, Math.ceil(page.total / perPage)),
      has_next: hasNext,
      has_prev: number > 1,
      next_cursor: hasNext ? encodeCursor(kind, rows.at(-1)!.id) : null,
    },
  };
}

/** Cursors are the public id of the last row, base64url-encoded so clients treat them as opaque. */
export function encodeCursor(kind: IdKind, uuid: string): string {
  return Buffer.from(toPublicId(kind, uuid)).toString('base64url');
}

export function decodeCursor(kind: IdKind, cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  const uuid = parsePublicId(kind, Buffer.from(cursor, 'base64url').toString('utf8'));
  if (uuid === null) throw AppError.invalid('cursor', 'is not a cursor this service issued');
  return uuid;
}
