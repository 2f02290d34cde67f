import { Body, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { CaseSearchService, SimilarCasesService } from '#history';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { filtersOf, toSimilarCase } from '../history.mapper.js';
import { SEARCH_ORDER } from '../history-search-filters.dto.js';
import { DEFAULT_SIMILAR_RESULTS, SimilarCasesDto } from '../history-search-results.dto.js';
import { HistorySearchQueryV2Dto, HistorySearchV2Dto } from './history-v2.dto.js';
import { parseCaseCursor, toSearchPageV2, toSimilarityProbe } from './history-v2.mapper.js';
import { SIMILARITY_SEARCH_EXAMPLES, SimilaritySearchDto } from './similarity-search.dto.js';

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
    return toSearchPageV2(found, perPage);
  }

  @Post('similarity-search')
  @HttpCode(200)
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'Cases similar to a description, descriptors, a place or a date',
    description:
      'Like v1 `GET /history/similar`, for something that is not a case yet: give at least one of `text`, `descriptors` and `coordinates` (and optionally `date` and `type`). Each result has `similarity` in 0..1 and its `similarity_components`. It reads only, so it needs only `analytics:read` and creates nothing.',
  })
  @ApiJsonBody(SimilaritySearchDto, SIMILARITY_SEARCH_EXAMPLES)
  @ApiOkResponse({ type: SimilarCasesDto })
  async similaritySearch(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SimilaritySearchDto,
  ): Promise<SimilarCasesDto> {
    const found = await this.similar.find(
      principal,
      toSimilarityProbe(body),
      body.limit ?? DEFAULT_SIMILAR_RESULTS,
    );
    return { results: found.map(toSimilarCase) };
  }
}
