import { Module } from '@nestjs/common';
import { AnalyticsModule } from '#analytics';
import { HttpConventionsModule } from '../http/http-conventions.module.js';
import { AnalyticsV1Controller } from './v1/analytics-v1.controller.js';
import { AnalyticsV2Controller } from './v2/analytics-v2.controller.js';
import { HistoryAnalyticsV1Controller } from './v1/history-analytics-v1.controller.js';

/** Analytics routes; ApiModule lists it before HistoryHttpModule (see the controller). */
@Module({
  imports: [AnalyticsModule, HttpConventionsModule],
  controllers: [HistoryAnalyticsV1Controller, AnalyticsV1Controller, AnalyticsV2Controller],
})
export class AnalyticsHttpModule {}
