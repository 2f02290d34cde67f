import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { AppSettings } from '#config';
import { JobProducer } from './job-producer.js';
import { PeriodicTasks } from './periodic-tasks.js';
import { QUEUE } from './queues.js';
import { RedisService } from './redis.service.js';

/** Completed jobs are kept a day so a re-added job id within that time stays a no-op. */
const DEFAULT_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [AppSettings],
      useFactory: (settings: AppSettings) => ({
        connection: { url: settings.redisUrl, maxRetriesPerRequest: null },
        prefix: settings.redisPrefix,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      }),
    }),
    BullModule.registerQueue(
      { name: QUEUE.events },
      { name: QUEUE.sessions },
      { name: QUEUE.analyses },
      { name: QUEUE.reports },
      { name: QUEUE.maintenance },
    ),
  ],
  providers: [JobProducer, RedisService, PeriodicTasks],
  exports: [BullModule, JobProducer, RedisService, PeriodicTasks],
})
export class QueueModule {}
