import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalyticsModule } from '#analytics';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { HistoryModule } from '#history';
import { REPORT_ENTITIES } from './entities.js';
import { ReportRunner } from './report-runner.js';
import { ReportScheduler } from './report-scheduler.js';
import { ReportsRepository } from './reports.repository.js';
import { ReportsService } from './reports.service.js';

/** Reports built by the worker as PDF, CSV or JSON, and kept for download (issue 16). */
@Module({
  imports: [TypeOrmModule.forFeature(REPORT_ENTITIES), DatabaseModule, EventsModule],
  providers: [ReportsRepository, ReportsService],
  exports: [ReportsRepository, ReportsService],
})
export class ReportsModule {}

/** The worker's side: queuing builds from the outbox, building reports, retention and the sweep of lost jobs. */
@Module({
  imports: [ReportsModule, DatabaseModule, AnalyticsModule, HistoryModule, EventsModule],
  providers: [ReportRunner, ReportScheduler],
  exports: [ReportRunner],
})
export class ReportsWorkModule {}
