import {
  applyDecorators,
  Body,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  type Type,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Scope, type Principal } from '#common';
import { DowsingListsService, DowsingService, type DowsingPeople } from '#dowsing';
import type { DowsingRequest } from '#engines';
import { Audited } from '../../http/audited.decorator.js';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import {
  ApiJsonBody,
  ApiJsonBodyRefusals,
  type RequestExamples,
} from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { v1Page } from '../../http/v1-list.dto.js';
import { DOWSING_EXAMPLES } from '../dowsing-examples.js';
import { toDowsingFilter } from '../dowsing-mapping.js';
import {
  ChartAnalysisDto,
  DepthAnalysisDto,
  DowsingQueryDto,
  EnergyDetectionDto,
  EnergyMapDto,
  LocationFindingDto,
  MaterialIdentificationDto,
  MultiPointDto,
} from '../dowsing-request.dto.js';
import { dowsingPeople, queryRequest, variantRequest } from '../dowsing-request.mapper.js';
import {
  DowsingListQueryV1Dto,
  DowsingListV1Dto,
  DowsingQueryV1Dto,
  QUERY_ID,
} from './dowsing-v1.dto.js';
import { toQueryV1 } from './dowsing-v1.mapper.js';

const ANSWERED =
  'Answered within the request: 201 with `status` `completed` (or `failed`, with the reason); `dowsing.query_created` and `dowsing.query_completed` still go through the outbox to webhooks and the event log. Live queries done by people (`engine` `analyst`, docs/analysts.md) give 202 with `status` `pending`: the analysts are tasked blind (they see the query type, never the question, area, points or options) and their submissions (POST /v2/dowsing/queries/{query_id}/results) answer it; `dowsing.query_completed` follows, or `dowsing.query_failed` with `deadline_exceeded` when nobody submitted by the deadline.';

/**
 * Everything a route asking a dowsing question declares but its path and
 * operation: the write scope, the body with its examples and refusals, and
 * the two answers — 201 answered within the request, 202 answered later by people.
 */
function ApiAsksDowsing(body: Type, examples: RequestExamples) {
  return applyDecorators(
    HttpCode(201),
    Auth({ scopes: [Scope.DowsingWrite] }),
    ApiJsonBody(body, examples),
    ApiCreatedResponse({ type: DowsingQueryV1Dto, description: 'Answered' }),
    ApiAcceptedResponse({ type: DowsingQueryV1Dto, description: 'Accepted, answered later' }),
    ApiJsonBodyRefusals(),
  );
}

@ApiTags('Dowsing (v1)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'dowsing', version: '1' })
export class DowsingV1Controller {
  constructor(
    private readonly dowsing: DowsingService,
    private readonly lists: DowsingListsService,
  ) {}

  @Post('query')
  @ApiAsksDowsing(DowsingQueryDto, DOWSING_EXAMPLES.query)
  @ApiOperation({ summary: 'Ask a dowsing question', description: ANSWERED })
  async query(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: DowsingQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DowsingQueryV1Dto> {
    return this.answer(principal, requestId, queryRequest(body), response, dowsingPeople(body));
  }

  @Post('multi-point')
  @ApiAsksDowsing(MultiPointDto, DOWSING_EXAMPLES.multi_point)
  @ApiOperation({
    summary: 'Read several named points and name the strongest',
    description: `2–50 points; a reading and confidence per point. ${ANSWERED}`,
  })
  async multiPoint(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: MultiPointDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DowsingQueryV1Dto> {
    return this.answer(
      principal,
      requestId,
      variantRequest('multi_point', body),
      response,
      dowsingPeople(body),
    );
  }

  @Post('energy-map')
  @ApiAsksDowsing(EnergyMapDto, DOWSING_EXAMPLES.energy_map)
  @ApiOperation({
    summary: 'Read a grid of cells over a bounding box',
    description: `Up to 100 × 100 cells; a reading per cell and the strongest. ${ANSWERED}`,
  })
  async energyMap(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: EnergyMapDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DowsingQueryV1Dto> {
    return this.answer(
      principal,
      requestId,
      variantRequest('energy_map', body),
      response,
      dowsingPeople(body),
    );
  }

  @Post('depth-analysis')
  @ApiAsksDowsing(DepthAnalysisDto, DOWSING_EXAMPLES.depth_analysis)
  @ApiOperation({
    summary: 'Estimate a depth at a point',
    description: `A depth in meters with an interval, within 0 and max_depth_meters. ${ANSWERED}`,
  })
  async depthAnalysis(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: DepthAnalysisDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DowsingQueryV1Dto> {
    return this.answer(
      principal,
      requestId,
      variantRequest('depth_analysis', body),
      response,
      dowsingPeople(body),
    );
  }

  @Post('material-identification')
  @ApiAsksDowsing(MaterialIdentificationDto, DOWSING_EXAMPLES.material_identification)
  @ApiOperation({
    summary: 'Rank candidate materials',
    description: `Candidates from the documented vocabulary (or yours), ranked with probabilities that sum to 1. ${ANSWERED}`,
  })
  async materialIdentification(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: MaterialIdentificationDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DowsingQueryV1Dto> {
    return this.answer(
      principal,
      requestId,
      variantRequest('material_identification', body),
      response,
      dowsingPeople(body),
    );
  }

  @Post('chart-analysis')
  @ApiAsksDowsing(ChartAnalysisDto, DOWSING_EXAMPLES.chart_analysis)
  @ApiOperation({
    summary: 'Read a dowsing chart',
    description: `2–100 options; the chosen one and the reading strength per option. ${ANSWERED}`,
  })
  async chartAnalysis(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: ChartAnalysisDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DowsingQueryV1Dto> {
    return this.answer(
      principal,
      requestId,
      variantRequest('chart_analysis', body),
      response,
      dowsingPeople(body),
    );
  }

  @Post('location-finding')
  @ApiAsksDowsing(LocationFindingDto, DOWSING_EXAMPLES.location_finding)
  @ApiOperation({
    summary: 'Find candidate places for what is sought',
    description: `Up to max_candidates places inside the search area, each with accuracy_meters. ${ANSWERED}`,
  })
  async locationFinding(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: LocationFindingDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DowsingQueryV1Dto> {
    return this.answer(
      principal,
      requestId,
      variantRequest('location_finding', body),
      response,
      dowsingPeople(body),
    );
  }

  @Post('energy-detection')
  @ApiAsksDowsing(EnergyDetectionDto, DOWSING_EXAMPLES.energy_detection)
  @ApiOperation({
    summary: 'Detect energy at a point over a time window',
    description: `A signal strength and an energy signature. ${ANSWERED}`,
  })
  async energyDetection(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: EnergyDetectionDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DowsingQueryV1Dto> {
    return this.answer(
      principal,
      requestId,
      variantRequest('energy_detection', body),
      response,
      dowsingPeople(body),
    );
  }

  @Get('queries')
  @Auth({ scopes: [Scope.DowsingRead] })
  @ApiOperation({
    summary: "List your organisation's dowsing queries in the caller's mode, newest first",
    description:
      'Filter by `query_type`, `status` and `variant`; page with `limit` (1–100, default 20) and `offset`.',
  })
  @ApiOkResponse({ type: DowsingListV1Dto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: DowsingListQueryV1Dto,
  ): Promise<DowsingListV1Dto> {
    return v1Page(
      query,
      (page) => this.lists.list(principal, toDowsingFilter(query), page),
      toQueryV1,
    );
  }

  @Get('queries/:query_id')
  @Auth({ scopes: [Scope.DowsingRead] })
  @ApiOperation({ summary: 'Read a dowsing query and its result' })
  @ResourceParam('query_id', QUERY_ID.example, 'dowsing query')
  @ApiOkResponse({ type: DowsingQueryV1Dto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('query_id') id: string,
  ): Promise<DowsingQueryV1Dto> {
    return toQueryV1(await this.dowsing.get(principal, id));
  }

  @Delete('queries/:query_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.DowsingDelete] })
  @Audited('dowsing_query.deleted')
  @ApiOperation({
    summary: 'Delete a dowsing query',
    description:
      'Removes the query, its result and its readings (they leave heatmaps); its events keep only the query id and sequence (`"redacted": true`). An audit record keeps who deleted it and when.',
  })
  @ResourceParam('query_id', QUERY_ID.example, 'dowsing query')
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('query_id') id: string,
  ): Promise<void> {
    await this.dowsing.delete(principal, id);
  }

  private async answer(
    principal: Principal,
    requestId: string,
    request: DowsingRequest,
    response: Response,
    people: DowsingPeople,
  ): Promise<DowsingQueryV1Dto> {
    const query = await this.dowsing.create(principal, { request, people }, requestId);
    if (query.status === 'pending') response.status(202);
    return toQueryV1(query);
  }
}
