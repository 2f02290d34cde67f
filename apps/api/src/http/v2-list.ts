import type { Type as ClassType } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { AppError, parsePublicId, toPublicId, type IdKind } from '#common';
import { EXACT_COUNT_LIMIT, type PageRequest } from '#database';
import { IntegerQuery } from './query-params.js';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;
const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,80}$/;

/** Query of a version 2 list: `per_page` and the `cursor` of the previous page. */
export class V2ListQueryDto {
  @IntegerQuery({ minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE })
  // The validation pipe builds the query with `new`, so an absent per_page takes the default.
  per_page: number = DEFAULT_PER_PAGE;

  @ApiPropertyOptional({
    description: 'The `next_cursor` of the previous page',
    pattern: CURSOR_PATTERN.source,
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Matches(CURSOR_PATTERN, { message: 'is not a cursor this service issued' })
  cursor?: string;
}

export class PaginationDto {
  @ApiProperty({ type: 'integer' })
  page!: number;

  @ApiProperty({ type: 'integer' })
  per_page!: number;

  @ApiProperty({
    type: 'integer',
    description: `Matching items: exact up to ${EXACT_COUNT_LIMIT.toLocaleString('en')}; above that an estimate, and \`total_estimated\` is true`,
  })
  total!: number;

  @ApiProperty({
    description: `True when \`total\` (and so \`total_pages\`) is an estimate: more than ${EXACT_COUNT_LIMIT.toLocaleString('en')} items match`,
  })
  total_estimated!: boolean;

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
  page: { rows: Row[]; total: number; totalEstimated?: boolean; before: number },
  perPage: number,
  toItem: (row: Row) => Item,
): { data: Item[]; pagination: PaginationDto } {
  const hasNext = page.rows.length > perPage;
  const rows = page.rows.slice(0, perPage);
  const number = Math.floor(page.before / perPage) + 1;
  const seen = page.before + rows.length;
  // An estimate never claims fewer items than the pages already shown.
  const total = Math.max(page.total, seen + (hasNext ? 1 : 0));
  return {
    data: rows.map(toItem),
    pagination: {
      page: number,
      per_page: perPage,
      total,
      total_estimated: page.totalEstimated ?? false,
      total_pages: Math.max(1, Math.ceil(total / perPage)),
      has_next: hasNext,
      has_prev: number > 1,
      next_cursor: hasNext ? encodeCursor(kind, rows.at(-1)!.id, seen) : null,
    },
  };
}

/**
 * A cursor is the public id of the last row shown and how many rows were
 * shown up to it (so the next page knows its number without counting),
 * base64url-encoded so clients treat it as opaque.
 */
export function encodeCursor(kind: IdKind, uuid: string, seen: number): string {
  return Buffer.from(`${toPublicId(kind, uuid)}.${seen}`).toString('base64url');
}

function parseCursor(kind: IdKind, cursor: string): { afterId: string; seen: number | null } {
  const [id = '', seen, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  const afterId = parsePublicId(kind, id);
  if (afterId === null || rest.length > 0 || (seen !== undefined && !/^\d{1,9}$/.test(seen))) {
    throw AppError.invalid('cursor', 'is not a cursor this service issued');
  }
  return { afterId, seen: seen === undefined ? null : Number(seen) };
}

/** The page a v2 list query asks for. */
export function pageRequest(
  kind: IdKind,
  query: { cursor?: string | undefined; per_page: number },
): PageRequest {
  if (query.cursor === undefined) return { afterId: null, before: 0, perPage: query.per_page };
  const { afterId, seen } = parseCursor(kind, query.cursor);
  return { afterId, before: seen, perPage: query.per_page };
}

/** The row a cursor continues after; null for the first page. */
export function decodeCursor(kind: IdKind, cursor: string | undefined): string | null {
  return cursor === undefined ? null : parseCursor(kind, cursor).afterId;
}
