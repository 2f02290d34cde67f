import { Module } from '@nestjs/common';
import { AnalysesModule } from '#analyses';
import { DatabaseModule } from '#database';
import { DowsingModule } from '#dowsing';
import { EventsModule } from '#events';
import { HistoryModule } from '#history';
import { OrganizationsModule } from '#organizations';
import { SessionsModule } from '#sessions';
import { WebhooksModule } from '#webhooks';
import { DashboardService } from './dashboard.service.js';
import { HistoryAnalyticsService } from './history-analytics.service.js';

/**
 * Analytics over the history: rates, trends, performance and the dashboard
 * (issue 16). It owns no table: it reads the history's rollups and cases and
 * the other libs' read models.
 */
@Module({
  imports: [
    DatabaseModule,
    OrganizationsModule,
    HistoryModule,
    SessionsModule,
    AnalysesModule,
    DowsingModule,
    WebhooksModule,
    EventsModule,
  ],
  providers: [HistoryAnalyticsService, DashboardService],
  exports: [HistoryAnalyticsService, DashboardService],
})
export class AnalyticsModule {}
