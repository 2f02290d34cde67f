import { Body, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppError, Scope, type Principal } from '#common';
import { HeatmapService, MAX_HEATMAP_CELLS, type Heatmap } from '#dowsing';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody, ApiJsonBodyRefusals } from '../../http/request-examples.js';
import { VARIANT_DEFAULTS } from '../dowsing-request.mapper.js';
import {
  GEOJSON_MEDIA_TYPE,
  HEATMAP_EXAMPLES,
  HeatmapFeatureCollectionDto,
  HeatmapRequestDto,
  HeatmapV2Dto,
} from './heatmap.dto.js';
import { toHeatmapGeoJson, toHeatmapV2 } from './heatmap.mapper.js';

@ApiTags('Dowsing (v2)')
@ApiResponse({
  status: 400,
  description: 'VALIDATION_ERROR naming the field, with suggested_value where one exists',
  type: ErrorEnvelopeDto,
})
@ApiExtraModels(HeatmapV2Dto, HeatmapFeatureCollectionDto)
@ApiController({ path: 'dowsing', version: '2' })
export class DowsingHeatmapV2Controller {
  constructor(private readonly heatmaps: HeatmapService) {}

  @Post('heatmap')
  @HttpCode(200)
  @Auth({ scopes: [Scope.DowsingRead] })
  @ApiOperation({
    summary: 'Count located readings per cell over a box, as JSON or GeoJSON',
    description: `The box: \`bounds\` with south < north, and east < west for a box across the antimeridian; readings on its edges count. Cells are tiles of a fixed global grid (level z: tiles of 180°/2^z of latitude and longitude), chosen from \`cell_size_meters\`; each cell is its tile clipped to the box, and the same place falls in the same tile whatever box is asked. \`source\` \`stored\` (default): your organisation's located readings in the box in the caller's mode, counted exactly — every reading on or inside the box once, none outside it — with their mean confidence; reads only (\`dowsing:read\`). \`source\` \`scan\`: a fresh simulated energy map over the whole tiles the box meets (at most 100 × 100), stored and announced as a dowsing query (\`dowsing.query_created\`, \`dowsing.query_completed\`) and so needing \`dowsing:write\` as well (403 without it); the answer is its readings per tile and its \`query\`. At most ${MAX_HEATMAP_CELLS.toLocaleString('en')} cells. JSON by default; \`Accept: ${GEOJSON_MEDIA_TYPE}\` answers a GeoJSON FeatureCollection of Polygon cells (RFC 7946) with the rest under \`heatmap\`.`,
  })
  @ApiJsonBody(HeatmapRequestDto, HEATMAP_EXAMPLES)
  @ApiOkResponse({
    description: `The heatmap: \`application/json\` (default) or \`${GEOJSON_MEDIA_TYPE}\` (Accept). Only the cells with readings are listed.`,
    content: {
      'application/json': { schema: { $ref: getSchemaPath(HeatmapV2Dto) } },
      [GEOJSON_MEDIA_TYPE]: { schema: { $ref: getSchemaPath(HeatmapFeatureCollectionDto) } },
    },
  })
  @ApiJsonBodyRefusals()
  async heatmap(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: HeatmapRequestDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<HeatmapV2Dto | HeatmapFeatureCollectionDto> {
    const heatmap = await this.compute(principal, requestId, body);
    response.vary('Accept');
    if (request.accepts(['application/json', GEOJSON_MEDIA_TYPE]) === GEOJSON_MEDIA_TYPE) {
      response.type(GEOJSON_MEDIA_TYPE);
      return toHeatmapGeoJson(heatmap);
    }
    return toHeatmapV2(heatmap);
  }

  private compute(
    principal: Principal,
    requestId: string,
    body: HeatmapRequestDto,
  ): Promise<Heatmap> {
    const request = {
      bounds: { ...body.bounds },
      cellSizeMeters: body.cell_size_meters,
      source: body.source ?? 'stored',
    };
    if (request.source === 'stored') {
      if (body.question !== undefined) {
        throw AppError.invalid('question', 'is only for source scan');
      }
      return this.heatmaps.stored(principal, request);
    }
    // A scan stores an energy map query: it writes as well as reads.
    if (!principal.scopes.includes(Scope.DowsingWrite))
      throw AppError.forbidden([Scope.DowsingWrite]);
    const question = body.question ?? VARIANT_DEFAULTS.energy_map.question;
    if (question.trim() === '') throw AppError.invalid('question', 'must not be blank');
    return this.heatmaps.scan(principal, { ...request, question }, requestId);
  }
}
