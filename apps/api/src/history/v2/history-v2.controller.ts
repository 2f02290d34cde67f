import { Body, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AppError, Scope, type Principal } from '#common';
import { CaseSearchService, RANKED_WINDOW, SimilarCasesService, type CaseCursor } from '#history';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { encodeCursor, pageRequest } from '../../http/v2-list.js';
import { HistorySearchV2Dto, SimilarCasesDto } from '../history-case.dto.js';
import { filtersOf, toSearchHit, toSimilarCase } from '../history.mapper.js';
import { HistorySearchQueryV2Dto } from '../history-search.dto.js';
import { SEARCH_ORDER } from '../v1/history-v1.controller.js';
import { DEFAULT_SIMILAR_RESULTS, SimilaritySearchDto } from './similarity-search.dto.js';

@ApiTags('History (v2)')
@ApiResponse({
  status: 400,
  description: 'VALIDATION_ERROR naming the parameter, with suggested_value where one exists',
  type: ErrorEnvelopeDto,
})
@ApiController({ path: 'history', version: '2' })
export class HistoryV2Controller {
  constructor(
    private readonly search: CaseSearchService,
    private readonly similar: SimilarCasesService,
  ) {}

  @Get('search')
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'Search the history, a page at a time with a cursor',
    description: `The filters of v1 \`GET /history/search\`, in the later-generation list shape: \`data\` and \`pagination\`; pass \`next_cursor\` as \`cursor\` (with the same filters) for the next page. ${SEARCH_ORDER} Pages never use OFFSET on the table: within the ranked window a cursor is a place in it, past it the last case shown.`,
  })
  @ApiOkResponse({ type: HistorySearchV2Dto })
  async searchCases(
    @CurrentPrincipal() principal: Principal,
    @Query() query: HistorySearchQueryV2Dto,
  ): Promise<HistorySearchV2Dto> {
    const perPage = query.per_page;
    const found = await this.search.page(
      principal,
      filtersOf(query),
      query.cursor === undefined ? null : parseCaseCursor(query.cursor),
      perPage,
    );
    const number = Math.floor(found.before / perPage) + 1;
    const seen = found.before + found.hits.length;
    const total = Math.max(found.total, seen + (found.next ? 1 : 0));
    return {
      data: found.hits.map(toSearchHit),
      pagination: {
        page: number,
        per_page: perPage,
        total,
        total_estimated: found.totalEstimated,
        total_pages: Math.max(1, Math.ceil(total / perPage)),
        has_next: found.next !== null,
        has_prev: number > 1,
        next_cursor: found.next === null ? null : encodeCaseCursor(found.next),
      },
    };
  }

  @Post('similarity-search')
  @HttpCode(200)
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'Cases similar to a description, descriptors, a place or a date',
    description:
      'Like v1 `GET /history/similar`, for something that is not a case yet: give at least one of `text`, `descriptors` and `coordinates` (and optionally `date` and `type`). Each result has `similarity` in 0..1 and its `similarity_components`. It reads only, so it needs only `analytics:read` and creates nothing.',
  })
  @ApiJsonBody(SimilaritySearchDto, {
    text: {
      summary: 'Free text and descriptors',
      value: { text: 'Tall water tower beside a railway line', descriptors: ['water', 'metal'] },
    },
    place: {
      summary: 'A place and a type',
      value: { coordinates: { latitude: 51.5074, longitude: -0.1278 }, type: 'dowsing', limit: 5 },
    },
  })
  @ApiOkResponse({ type: SimilarCasesDto })
  async similaritySearch(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SimilaritySearchDto,
  ): Promise<SimilarCasesDto> {
    if (body.text === undefined && !body.descriptors?.length && body.coordinates === undefined) {
      throw AppError.invalid('text', 'give text, descriptors or coordinates to compare cases with');
    }
    const found = await this.similar.find(
      principal,
      {
        text: body.text?.trim() || null,
        descriptors: body.descriptors ?? [],
        point: body.coordinates ?? null,
        date: body.date === undefined ? null : new Date(body.date),
        type: body.type ?? null,
        excludeId: null,
      },
      body.limit ?? DEFAULT_SIMILAR_RESULTS,
    );
    return { results: found.map(toSimilarCase) };
  }
}

/**
 * A place in the ranked window (`w.<position>`, base64url-encoded so
 * clients treat it as opaque), or past it the shared v2 cursor: the last
 * case shown and how many were shown.
 */
export function encodeCaseCursor(cursor: CaseCursor): string {
  return cursor.kind === 'window'
    ? Buffer.from(`w.${cursor.position}`).toString('base64url')
    : encodeCursor('history', cursor.id, cursor.seen);
}

function parseCaseCursor(cursor: string): CaseCursor {
  const window = /^w\.(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (window) {
    const position = Number(window[1]);
    if (position > RANKED_WINDOW)
      throw AppError.invalid('cursor', 'is not a cursor this service issued');
    return { kind: 'window', position };
  }
  const { afterId, before } = pageRequest('history', { cursor, per_page: 1 });
  return { kind: 'after', id: afterId!, seen: before ?? 0 };
}
