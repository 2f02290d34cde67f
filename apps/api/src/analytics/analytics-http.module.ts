import { Module } from '@nestjs/common';
import { AnalyticsModule } from '#analytics';
import { AnalyticsV1Controller } from './v1/analytics-v1.controller.js';
import { HistoryAnalyticsV1Controller } from './v1/history-analytics-v1.controller.js';

/** Analytics routes; ApiModule lists it before HistoryHttpModule (see the controller). */
@Module({
  imports: [AnalyticsModule],
  controllers: [HistoryAnalyticsV1Controller, AnalyticsV1Controller],
})
export class AnalyticsHttpModule {}
