import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HistoryAnalyticsService, PERFORMANCE_WORK_LIMIT } from '#analytics';
import { Scope, type Principal } from '#common';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { toPerformance } from './history-analytics-v1.mapper.js';
import { PerformanceDto } from './performance-v1.dto.js';

@ApiTags('Analytics (v1)')
@ApiController({ path: 'analytics', version: '1' })
export class AnalyticsV1Controller {
  constructor(private readonly analytics: HistoryAnalyticsService) {}

  @Get('performance')
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'How well your work performs, per engine, analyst, type and modality',
    description: `Per engine: the newest ${PERFORMANCE_WORK_LIMIT.toLocaleString('en')} finished pieces of each kind of work (sessions, analyses, dowsing queries) — counts, failures, hit rate over those whose case has a verdict, mean SAIC accuracy and reliability where the work is judged descriptor by descriptor (sessions; otherwise null and \`scores_note\` says why) and processing-time percentiles. Per analyst, type and modality: every case, from the rollups. Hit rates are rate objects against chance. Classified cases (and the work behind them) are never counted. The sandbox's simulated engine performs at chance by design.`,
  })
  @ApiOkResponse({ type: PerformanceDto })
  async performance(@CurrentPrincipal() principal: Principal): Promise<PerformanceDto> {
    return toPerformance(await this.analytics.performance(principal));
  }
}
