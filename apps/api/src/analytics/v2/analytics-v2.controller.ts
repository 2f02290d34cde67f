import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DashboardService } from '#analytics';
import { Scope, type Principal } from '#common';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { RequestLimiter } from '../../http/request-limiter.js';
import { DashboardDto } from './dashboard-v2.dto.js';
import { toDashboard } from './dashboard-v2.mapper.js';

@ApiTags('Analytics (v2)')
@ApiController({ path: 'analytics', version: '2' })
export class AnalyticsV2Controller {
  constructor(
    private readonly dashboard: DashboardService,
    private readonly limiter: RequestLimiter,
  ) {}

  @Get('dashboard')
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'One call for a dashboard',
    description:
      'Work by kind and status over the last 24 hours, 7 days and 30 days, and per day of the 30; hit rates per type over the last 30 days’ cases; requests against the plan’s and tier’s limits and running work against the concurrent limit; webhook health over the last 24 hours, and per hour of them; the latest events. Every figure is your organisation’s in the caller’s mode; classified cases are never counted.',
  })
  @ApiOkResponse({ type: DashboardDto })
  async dashboardOf(@CurrentPrincipal() principal: Principal): Promise<DashboardDto> {
    const [dashboard, requests] = await Promise.all([
      this.dashboard.of(principal),
      this.limiter.usage(principal),
    ]);
    return toDashboard(dashboard, requests);
  }
}
