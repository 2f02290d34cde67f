import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import {
  AnalystDowsing,
  DowsingListsService,
  DowsingService,
  type NewDowsingQuery,
} from '#dowsing';
import { toBatchStatusV1 } from '../../batches/v1/batch-v1.mapper.js';
import type { Member } from '#auth';
import { AssignmentDto } from '../../assignments/v2/assignment-v2.dto.js';
import { toAssignmentDto } from '../../assignments/v2/assignment-v2.mapper.js';
import { ApiSubmitResults } from '../../assignments/submission-body.decorator.js';
import { readSubmission } from '../../assignments/submission-body.js';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, OptionalMember, RequestId } from '../../http/auth.decorator.js';
import type { ApiRequest } from '../../http/request-context.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody, ApiJsonBodyRefusals } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import type { DowsingQueryDto } from '../dowsing-request.dto.js';
import { dowsingPeople, queryRequest, variantRequest } from '../dowsing-request.mapper.js';
import { dowsingBatchItem, toDowsingFilter } from '../dowsing-mapping.js';
import { QUERY_ID } from '../v1/dowsing-v1.dto.js';
import {
  DOWSING_BATCH_EXAMPLES,
  DowsingBatchCreatedDto,
  DowsingBatchDto,
  MAX_DOWSING_BATCH_SIZE,
  type DowsingBatchItem,
} from './dowsing-batch.dto.js';
import { DowsingListQueryV2Dto, DowsingListV2Dto, DowsingQueryV2Dto } from './dowsing-v2.dto.js';
import { toQueryV2 } from './dowsing-v2.mapper.js';
import { LinkBase } from '../../http/sandbox.js';

@ApiTags('Dowsing (v2)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'dowsing', version: '2' })
export class DowsingV2Controller {
  constructor(
    private readonly dowsing: DowsingService,
    private readonly lists: DowsingListsService,
    private readonly analystDowsing: AnalystDowsing,
  ) {}

  @Post('queries/:query_id/results')
  @ApiSubmitResults({
    noun: 'dowsing query',
    param: 'query_id',
    example: QUERY_ID.example,
    scope: Scope.DowsingWrite,
    summary: "Submit an analyst's answer to a dowsing query",
    about:
      'For queries of the `analyst` engine (docs/analysts.md, "Analyses and dowsing by people"). You are tasked blind: your assignment shows the query type (`question_type`), never the question, the area, the points or the options. Answer with descriptors — a yes/no question with `yes` or `no` (or `neutral`); a question with options (a chart\'s `options`, a material\'s candidates) with the option you pick as a descriptor; a location question with `coordinates`; any other question with descriptors. When everyone has submitted (or at the deadline) the query is answered from the submissions: the weighted majority of the answers, the weighted plurality of the picks, or the weighted geometric median of the points.',
  })
  async submitResults(
    @OptionalMember() member: Member | undefined,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('query_id') id: string,
    @Req() request: ApiRequest,
    @LinkBase() linkBase: string,
  ): Promise<AssignmentDto> {
    const submission = await readSubmission(request);
    const assignment = await this.analystDowsing.submit(
      member,
      principal,
      id,
      submission,
      requestId,
    );
    return toAssignmentDto(assignment, linkBase);
  }

  @Post('batch')
  @HttpCode(201)
  @Auth({ scopes: [Scope.DowsingWrite] })
  @ApiOperation({
    summary: 'Ask up to 100 dowsing queries of any variant at once',
    description: `Up to ${MAX_DOWSING_BATCH_SIZE} items, each a v1 body with \`variant\` naming which; answered and stored in one transaction, all or none (a bad item answers 400 naming it, e.g. \`queries.7.question\`). Each item takes the tasking fields of its v1 body: in live mode, items done by people (\`engine\` \`analyst\`) are tasked one by one with their own fields and stay \`pending\` until their analysts have submitted (docs/analysts.md). Follow them with GET /v1/batch/{batch_id}/status and /results.`,
  })
  @ApiJsonBody(DowsingBatchDto, DOWSING_BATCH_EXAMPLES)
  @ApiCreatedResponse({ type: DowsingBatchCreatedDto })
  @ApiJsonBodyRefusals()
  async batch(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: DowsingBatchDto,
  ): Promise<DowsingBatchCreatedDto> {
    const requests = body.queries.map((item, i) => batchRequest(item, `queries.${i}.`));
    const { batch, created: queries } = await this.dowsing.createBatch(
      principal,
      requests,
      requestId,
    );
    return {
      ...toBatchStatusV1(batch, queries.map(dowsingBatchItem)),
      queries: queries.map(toQueryV2),
    };
  }

  @Get('queries')
  @Auth({ scopes: [Scope.DowsingRead] })
  @ApiOperation({
    summary: "List your organisation's dowsing queries in the caller's mode, newest first",
    description:
      'Filters combine: `query_type`, `status`, `variant`. Pages with `per_page` and the opaque `cursor` of the previous page. Results are the later-generation ones.',
  })
  @ApiOkResponse({ type: DowsingListV2Dto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: DowsingListQueryV2Dto,
  ): Promise<DowsingListV2Dto> {
    const page = await this.lists.page(
      principal,
      toDowsingFilter(query),
      pageRequest('dowsing', query),
    );
    return v2Page('dowsing', page, query.per_page, toQueryV2);
  }

  @Get('queries/:query_id')
  @Auth({ scopes: [Scope.DowsingRead] })
  @ApiOperation({
    summary: 'Read a dowsing query with the later-generation result',
    description: '`result.locations` and `result.statistical_significance` besides the v1 fields.',
  })
  @ResourceParam('query_id', QUERY_ID.example, 'dowsing query')
  @ApiOkResponse({ type: DowsingQueryV2Dto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('query_id') id: string,
  ): Promise<DowsingQueryV2Dto> {
    return toQueryV2(await this.dowsing.get(principal, id));
  }
}

function batchRequest(item: DowsingBatchItem, at: string): NewDowsingQuery {
  const { variant, ...body } = item;
  return {
    request:
      variant === 'query'
        ? queryRequest(body as unknown as DowsingQueryDto, at)
        : variantRequest(variant, body as never, at),
    people: dowsingPeople(body),
  };
}
