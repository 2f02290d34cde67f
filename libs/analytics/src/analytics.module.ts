import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { OrganizationsModule } from '#organizations';
import { DashboardService } from './dashboard.service.js';
import { HistoryAnalyticsService } from './history-analytics.service.js';

/** Analytics over the history: rates, trends, performance and the dashboard (issue 16). */
@Module({
  imports: [DatabaseModule, OrganizationsModule],
  providers: [HistoryAnalyticsService, DashboardService],
  exports: [HistoryAnalyticsService, DashboardService],
})
export class AnalyticsModule {}
