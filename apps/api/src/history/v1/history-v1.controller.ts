import { Body, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AppError, parsePublicId, Scope, type Principal } from '#common';
import { CaseSearchService, HistoryService, SimilarCasesService, sideOf } from '#history';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { DEFAULT_V1_LIMIT } from '../../http/v1-list.dto.js';
import { filtersOf, toSearchHit, toSimilarCase } from '../history.mapper.js';
import { SEARCH_ORDER } from '../history-search-filters.dto.js';
import { DEFAULT_SIMILAR_RESULTS, SimilarCasesDto } from '../history-search-results.dto.js';
import {
  CASE_ID_EXAMPLE,
  HistoryCaseDto,
  HistorySearchQueryV1Dto,
  HistorySearchV1Dto,
  SimilarCasesQueryDto,
} from './history-v1.dto.js';
import { toCaseDetail, toOutcome } from './history-v1.mapper.js';
import { RECORD_OUTCOME_EXAMPLES, RecordOutcomeDto } from './record-outcome-v1.dto.js';

@ApiTags('History (v1)')
@ApiResponse({
  status: 400,
  description: 'Invalid request, naming the parameter',
  type: ErrorEnvelopeDto,
})
@ApiController({ path: 'history', version: '1' })
export class HistoryV1Controller {
  constructor(
    private readonly history: HistoryService,
    private readonly search: CaseSearchService,
    private readonly similar: SimilarCasesService,
  ) {}

  @Get('search')
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'Search the history of your organisation in the caller’s mode',
    description: `Every finished session, analysis and dowsing query is a case, and so is every imported one. Filters combine: \`q\`, \`type\`, \`date_from\`/\`date_to\`, \`location\` (a circle), \`bbox\` and \`outcome\`. ${SEARCH_ORDER} Page with \`limit\` (1–100, default ${DEFAULT_V1_LIMIT}) and \`offset\` (at most 10,000; the v2 search pages further with a cursor). \`total\` is exact up to 1,000 matches, then PostgreSQL’s estimate (\`total_estimated\`).`,
  })
  @ApiOkResponse({ type: HistorySearchV1Dto })
  async searchCases(
    @CurrentPrincipal() principal: Principal,
    @Query() query: HistorySearchQueryV1Dto,
  ): Promise<HistorySearchV1Dto> {
    const limit = query.limit ?? DEFAULT_V1_LIMIT;
    const offset = query.offset ?? 0;
    const found = await this.search.search(principal, filtersOf(query), { limit, offset });
    return {
      results: found.hits.map(toSearchHit),
      total: found.total,
      total_estimated: found.totalEstimated,
      limit,
      offset,
      has_more: found.hasMore,
    };
  }

  @Get('similar')
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'The cases most similar to one of yours',
    description:
      'Compares the case’s target (trigrams), descriptors (Jaccard), location (distance) and date with other cases of your organisation and mode, classified ones never included, and returns the most similar first with each component (docs: “Similar cases”). Candidates come from the indexes — the newest 2,000 cases sharing a word or descriptor (the 100 with the most alike targets and the 100 newest of them) and the 100 nearest — so a case with nothing of them in common with this one is never compared with it.',
  })
  @ApiResponse({
    status: 404,
    description: 'No such case in your organisation and mode',
    type: ErrorEnvelopeDto,
  })
  @ApiOkResponse({ type: SimilarCasesDto })
  async similarCases(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SimilarCasesQueryDto,
  ): Promise<SimilarCasesDto> {
    const record = await this.history.get(principal, query.case_id);
    const found = await this.similar.find(
      principal,
      {
        text: record.target,
        ...sideOf(record),
        type: query.type ?? null,
        excludeId: record.id,
      },
      query.limit ?? DEFAULT_SIMILAR_RESULTS,
    );
    return { results: found.map(toSimilarCase) };
  }

  @Get(':case_id')
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'Read a case',
    description:
      'The spec’s case detail, with our additions: how the work ended, its descriptors, the verified outcome’s verdict, coordinates and error distance, and the work the case records.',
  })
  @ResourceParam('case_id', CASE_ID_EXAMPLE, 'history case')
  @ApiOkResponse({ type: HistoryCaseDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('case_id') caseId: string,
  ): Promise<HistoryCaseDto> {
    return toCaseDetail(await this.history.get(principal, caseId));
  }

  @Put(':case_id/outcome')
  @Auth({ scopes: [Scope.AnalyticsAdmin] })
  @ApiOperation({
    summary: 'Record what really happened (our addition)',
    description:
      'Records the verified outcome of a case — or corrects it: a PUT replaces the whole outcome, and the earlier one is kept in the audit trail (`history_case.outcome_corrected`). Emits `history.outcome_verified` (with `corrected`). From then on statistics that can use verified outcomes do — dowsing significance, analysis confidence — and say so in `evidence`. The work of a failed case gave nothing to verify: 409.',
  })
  @ResourceParam('case_id', CASE_ID_EXAMPLE, 'history case')
  @ApiJsonBody(RecordOutcomeDto, RECORD_OUTCOME_EXAMPLES)
  @ApiResponse({ status: 409, description: 'The work of this case failed', type: ErrorEnvelopeDto })
  @ApiOkResponse({ type: HistoryCaseDto })
  async recordOutcome(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('case_id') caseId: string,
    @Body() body: RecordOutcomeDto,
  ): Promise<HistoryCaseDto> {
    if (parsePublicId('history', caseId) === null) throw AppError.notFound('history case', caseId);
    const record = await this.history.recordOutcome(principal, caseId, toOutcome(body), requestId);
    return toCaseDetail(record);
  }
}
