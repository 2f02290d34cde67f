import { Module, type DynamicModule } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AnalysesWorkModule } from '#analyses';
import { JudgingWorkModule } from '#analysts';
import { AuthWorkModule } from '#auth';
import { DowsingWorkModule } from '#dowsing';
import { ERROR_SERIALIZERS } from '#common';
import { AppSettings, ConfigModule, type Settings } from '#config';
import { DatabaseModule } from '#database';
import { EventsModule, EventsWorkModule } from '#events';
import { IdempotencyWorkModule } from '#idempotency';
import { QueueModule } from '#queue';
import { ReportsWorkModule } from '#reports';
import { SsoWorkModule } from '#sso';
import { SessionsWorkModule } from '#sessions';
import { WebhooksWorkModule } from '#webhooks';
import { WorkModule } from '#work';
import { AnalysesProcessor } from './processors/analyses.processor.js';
import { EventsProcessor } from './processors/events.processor.js';
import { MaintenanceProcessor } from './processors/maintenance.processor.js';
import { ReportsProcessor } from './processors/reports.processor.js';
import { SessionsProcessor } from './processors/sessions.processor.js';
import { WorkProcessor } from './processors/work.processor.js';
import { withQueueWorkerOptions } from './queue-worker-options.js';
import { QueueWorkersShutdown } from './queue-workers-shutdown.js';

/** One per queue; each BullMQ Worker also takes QUEUE_LOCK_DURATION_MS and QUEUE_STALLED_INTERVAL_MS. */
const PROCESSORS = [
  EventsProcessor,
  SessionsProcessor,
  AnalysesProcessor,
  ReportsProcessor,
  MaintenanceProcessor,
  WorkProcessor,
];

/** The worker: the features' work modules (relay, runners, deliverer, periodic tasks) and one thin processor per queue. */
@Module({})
export class WorkerModule {
  static forSettings(settings: Settings): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forSettings(settings),
        // Failed statements are logged without their parameters, as in the API.
        LoggerModule.forRoot({
          pinoHttp: { level: settings.logLevel, serializers: ERROR_SERIALIZERS },
        }),
        DatabaseModule,
        QueueModule,
        EventsModule,
        EventsWorkModule,
        SessionsWorkModule,
        AnalysesWorkModule,
        DowsingWorkModule,
        ReportsWorkModule,
        SsoWorkModule,
        JudgingWorkModule,
        AuthWorkModule,
        WebhooksWorkModule,
        IdempotencyWorkModule,
        WorkModule,
      ],
      providers: [
        ...PROCESSORS.map((processor) => withQueueWorkerOptions(processor, settings)),
        {
          provide: QueueWorkersShutdown,
          inject: [ModuleRef, AppSettings],
          useFactory: (moduleRef: ModuleRef, appSettings: AppSettings) =>
            new QueueWorkersShutdown(moduleRef, appSettings, PROCESSORS),
        },
      ],
    };
  }
}
