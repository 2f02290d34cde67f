import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { HistoryAnalyticsService } from './history-analytics.service.js';

/** Analytics over the history: rates, trends, performance and the dashboard (issue 16). */
@Module({
  imports: [DatabaseModule],
  providers: [HistoryAnalyticsService],
  exports: [HistoryAnalyticsService],
})
export class AnalyticsModule {}
