import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AppError, Scope, type Principal } from '#common';
import { TemporalAnalysisService, type TemporalAnalysisRequest } from '#dowsing';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { TemporalAnalysisDto, TemporalAnalysisQueryDto } from './temporal-analysis.dto.js';
import { toTemporalAnalysisV2 } from './temporal-analysis.mapper.js';

const AREA_FIELDS = ['latitude', 'longitude', 'radius_meters'] as const;

@ApiTags('Dowsing (v2)')
@ApiResponse({
  status: 400,
  description: 'VALIDATION_ERROR naming the parameter, with suggested_value where one exists',
  type: ErrorEnvelopeDto,
})
@ApiController({ path: 'dowsing', version: '2' })
export class DowsingTemporalAnalysisV2Controller {
  constructor(private readonly temporal: TemporalAnalysisService) {}

  @Get('temporal-analysis')
  @Auth({ scopes: [Scope.DowsingRead] })
  @ApiOperation({
    summary: 'How your dowsing queries about a place or a question went over time',
    description:
      "Completed queries of your organisation in the caller's mode — with a located reading within an area, asking a question (exact, ignoring case), or both; optionally of one `query_type` — per day, ISO week or calendar month (UTC) between `date_from` and `date_to`, widened to whole buckets. Each bucket: how many, their mean confidence against their mean chance baseline, and the share that beat chance on their own test (a rate against 5 %). Two Mann–Kendall trends (exact p-value up to 10 buckets, else the normal approximation with tie-corrected variance) with Sen's slope: of the count, over complete buckets, and of the confidence above chance. `warning` says when the buckets are too few or too small to say anything. Reads only.",
  })
  @ApiOkResponse({ type: TemporalAnalysisDto })
  async analyse(
    @CurrentPrincipal() principal: Principal,
    @Query() query: TemporalAnalysisQueryDto,
  ): Promise<TemporalAnalysisDto> {
    const area = areaOf(query);
    const request: TemporalAnalysisRequest = {
      interval: query.interval,
      dateFrom: new Date(query.date_from),
      dateTo: new Date(query.date_to),
      ...(query.question !== undefined && { question: query.question }),
      ...(query.query_type && { queryType: query.query_type }),
      ...(area && { area }),
    };
    return toTemporalAnalysisV2(request, await this.temporal.analyse(principal, request));
  }
}

/** The area, when all three of its parameters are sent; one or two of them is a 400 naming a missing one. */
function areaOf(query: TemporalAnalysisQueryDto): TemporalAnalysisRequest['area'] | null {
  const sent = AREA_FIELDS.filter((field) => query[field] !== undefined);
  if (sent.length === 0) return null;
  const missing = AREA_FIELDS.find((field) => query[field] === undefined);
  if (missing) {
    throw AppError.invalid(
      missing,
      `is needed with ${sent.join(' and ')}: an area is latitude, longitude and radius_meters`,
    );
  }
  return {
    latitude: query.latitude!,
    longitude: query.longitude!,
    radiusMeters: query.radius_meters!,
  };
}
