import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HistoryAnalyticsService } from '#analytics';
import { Scope, type Principal } from '#common';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import {
  HistoryAnalyticsDto,
  HistoryAnalyticsQueryDto,
  HistoryTrendsDto,
  HistoryTrendsQueryDto,
} from './history-analytics-v1.dto.js';
import {
  caseFiltersOf,
  toHistoryAnalytics,
  toHistoryTrends,
} from './history-analytics-v1.mapper.js';

const SOURCE =
  'Read from rollups the database keeps up to date in the statement that writes each case (per type, subtype, modality and work status, by UTC day, ISO week, month and all time), so the answer is exact at every commit and costs the same at a million cases: a read takes whole months (weeks for a weekly series) and the days at either end; only a day a date-time bound cuts is read case by case. Classified cases are never counted.';

/** Registered before the history controller, whose `GET /v1/history/:case_id` would take these paths. */
@ApiTags('Analytics (v1)')
@ApiResponse({
  status: 400,
  description: 'Invalid request, naming the parameter',
  type: ErrorEnvelopeDto,
})
@ApiController({ path: 'history', version: '1' })
export class HistoryAnalyticsV1Controller {
  constructor(private readonly analytics: HistoryAnalyticsService) {}

  @Get('analytics')
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'Counts and hit rates of your history',
    description: `Your organisation’s cases in the caller’s mode, counted by type, outcome (verdict or unverified), modality and work status, with hit rates over the verified cases against chance. Filters combine: \`type\`, \`date_from\`/\`date_to\` (inclusive, as in the history search), \`analyst_id\`. ${SOURCE}`,
  })
  @ApiOkResponse({ type: HistoryAnalyticsDto })
  async analyticsOf(
    @CurrentPrincipal() principal: Principal,
    @Query() query: HistoryAnalyticsQueryDto,
  ): Promise<HistoryAnalyticsDto> {
    const filters = caseFiltersOf(query);
    return toHistoryAnalytics(filters, await this.analytics.summary(principal, filters));
  }

  @Get('trends')
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'Your history over time, with its trends',
    description: `Cases, hit rate and mean confidence per day, ISO week or calendar month (UTC), every bucket of the range listed, with the Mann–Kendall trend of each series (Sen’s slope per interval, two-sided p-value) and a \`warning\` when the buckets are too few or too small to say anything. Same filters as \`GET /v1/history/analytics\`. ${SOURCE}`,
  })
  @ApiOkResponse({ type: HistoryTrendsDto })
  async trendsOf(
    @CurrentPrincipal() principal: Principal,
    @Query() query: HistoryTrendsQueryDto,
  ): Promise<HistoryTrendsDto> {
    const filters = caseFiltersOf(query);
    const trends = await this.analytics.trends(principal, filters, query.interval ?? 'month');
    return toHistoryTrends(filters, trends);
  }
}
