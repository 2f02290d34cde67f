import { Module } from '@nestjs/common';
import { AnalyticsModule } from '#analytics';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { ReportRunner } from './report-runner.js';
import { ReportsService } from './reports.service.js';

/** Reports built by the worker as PDF, CSV or JSON, and kept for download (issue 16). */
@Module({
  imports: [DatabaseModule],
  providers: [ReportsService],
  exports: [ReportsService],
})
export class ReportsModule {}

/** The worker's side: building reports, retention and the sweep of lost jobs. */
@Module({
  imports: [DatabaseModule, AnalyticsModule, EventsModule],
  providers: [ReportRunner],
  exports: [ReportRunner],
})
export class ReportsWorkModule {}
