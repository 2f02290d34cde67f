import { BullModule, type RegisterQueueAsyncOptions } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { AppSettings } from '#config';
import { JobProducer } from './job-producer.js';
import { PeriodicTasks } from './periodic-tasks.js';
import { QUEUE } from './queues.js';
import { queuePrefix, usesRedisCluster } from './redis-connections.js';
import { RedisDataLoss } from './redis-data-loss.js';
import { RedisService } from './redis.service.js';

/** Completed jobs are kept a day so a re-added job id within that time stays a no-op. */
const DEFAULT_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/**
 * One queue's connection and key prefix. On a single Redis, BullMQ opens its
 * own connections from REDIS_URL. On a cluster it needs a client instance
 * (RedisService owns and closes it) and a hash-tagged prefix.
 */
function queueRegistration(name: string): RegisterQueueAsyncOptions {
  return {
    name,
    inject: [AppSettings, RedisService],
    useFactory: (settings: AppSettings, redis: RedisService) =>
      usesRedisCluster(settings)
        ? {
            connection: redis.queueConnection(),
            prefix: queuePrefix(settings, name),
            // The instance is shared by the queue and its worker: closed by RedisService.
            forceDisconnectOnShutdown: false,
          }
        : {},
  };
}

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
    BullModule.registerQueueAsync(...Object.values(QUEUE).map(queueRegistration)),
  ],
  providers: [JobProducer, RedisService, PeriodicTasks, RedisDataLoss],
  exports: [BullModule, JobProducer, RedisService, PeriodicTasks, RedisDataLoss],
})
export class QueueModule {}
