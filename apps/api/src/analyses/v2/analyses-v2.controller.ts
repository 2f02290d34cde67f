import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AnalysisListsService, AnalystAnalyses, PatternRecognitionService } from '#analyses';
import type { Member } from '#auth';
import { Scope, type Principal } from '#common';
import { AssignmentDto } from '../../assignments/v2/assignment-v2.dto.js';
import { toAssignmentDto } from '../../assignments/v2/assignment-v2.mapper.js';
import { ApiSubmitResults } from '../../assignments/submission-body.decorator.js';
import { readSubmission } from '../../assignments/submission-body.js';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, OptionalMember, RequestId } from '../../http/auth.decorator.js';
import type { ApiRequest } from '../../http/request-context.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import { toAnalysisFilter, toStatus } from '../analysis-mapping.js';
import { ANALYSIS_ID } from '../analysis-status.dto.js';
import { AnalysisListQueryV2Dto, AnalysisListV2Dto } from './analysis-v2.dto.js';
import { toPatternRequest } from './analysis-v2.mapper.js';
import {
  PATTERN_RECOGNITION_EXAMPLES,
  PatternRecognitionDto,
  PatternRecognitionResultDto,
} from './pattern-recognition.dto.js';
import { LinkBase } from '../../http/sandbox.js';

@ApiTags('Analysis (v2)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'analysis', version: '2' })
export class AnalysesV2Controller {
  constructor(
    private readonly lists: AnalysisListsService,
    private readonly patterns: PatternRecognitionService,
    private readonly analystAnalyses: AnalystAnalyses,
  ) {}

  @Post(':analysis_id/results')
  @ApiSubmitResults({
    noun: 'analysis',
    param: 'analysis_id',
    example: ANALYSIS_ID.example,
    scope: Scope.SessionsWrite,
    summary: "Submit an analyst's data for an analysis",
    about:
      'For analyses of the `analyst` engine (docs/analysts.md, "Analyses and dowsing by people"). The target you were tasked with is the analysis\'s description; its reference material and coordinates are never shown to you. When everyone has submitted (or at the deadline) the analysis completes: its results combine the submissions (summary, key findings with their support, confidence, the analysts\' collective risk assessment).',
  })
  async submitResults(
    @OptionalMember() member: Member | undefined,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('analysis_id') id: string,
    @Req() request: ApiRequest,
    @LinkBase() linkBase: string,
  ): Promise<AssignmentDto> {
    const submission = await readSubmission(request);
    const assignment = await this.analystAnalyses.submit(
      member,
      principal,
      id,
      submission,
      requestId,
    );
    return toAssignmentDto(assignment, linkBase);
  }

  @Get()
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: "List your organisation's analyses in the caller's mode, newest first",
    description:
      'Filters combine: `status`, `target_type`, `priority`. Pages with `per_page` and the opaque `cursor` of the previous page.',
  })
  @ApiOkResponse({ type: AnalysisListV2Dto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AnalysisListQueryV2Dto,
  ): Promise<AnalysisListV2Dto> {
    const page = await this.lists.page(
      principal,
      toAnalysisFilter(query),
      pageRequest('analysis', query),
    );
    return v2Page('analysis', page, query.per_page, toStatus);
  }

  @Post('pattern-recognition')
  @HttpCode(200)
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: 'Find patterns across your finished work',
    description:
      'Over completed sessions and analyses (explicit `items`, or a `filter`; at most 10,000): recurring descriptors with their support and an exact binomial test against a uniform pick from the vocabulary, adjusted for multiple comparisons (Holm by default); spatial clusters (DBSCAN with great-circle distance) with a Monte Carlo test against uniformly scattered points; and weekday and hour concentration (chi-square, Monte Carlo when cells are small). Reads only; answered in the request.',
  })
  @ApiJsonBody(PatternRecognitionDto, PATTERN_RECOGNITION_EXAMPLES)
  @ApiOkResponse({ type: PatternRecognitionResultDto })
  async recognize(
    @CurrentPrincipal() principal: Principal,
    @Body() body: PatternRecognitionDto,
  ): Promise<PatternRecognitionResultDto> {
    return this.patterns.recognize(principal, toPatternRequest(body));
  }
}
