import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { JobProducer, QUEUE, RedisService } from '#queue';

/** The dependencies a process needs to do its work: PostgreSQL, Redis and the queues. */
@Injectable()
export class ReadinessChecks {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisService,
    private readonly jobs: JobProducer,
  ) {}

  all() {
    return [
      () => this.database.pingCheck('database', { timeout: 1500 }),
      () => this.redisPing(),
      () => this.queues(),
    ];
  }

  private async redisPing() {
    const check = this.health.check('redis');
    try {
      return (await withTimeout(this.redis.client.ping(), 1500)) === 'PONG'
        ? check.up()
        : check.down('no PONG');
    } catch (error) {
      return check.down({ message: String((error as Error).message ?? error) });
    }
  }

  private async queues() {
    const check = this.health.check('queues');
    try {
      // Jobs with a priority (analyses) wait in BullMQ's `prioritized` state, not `waiting`.
      const [sessions, analyses] = await withTimeout(
        Promise.all(
          [QUEUE.sessions, QUEUE.analyses].map((name) =>
            this.jobs.queue(name).getJobCounts('waiting', 'prioritized', 'active', 'delayed'),
          ),
        ),
        1500,
      );
      return check.up({ sessions, analyses });
    } catch (error) {
      return check.down({ message: String((error as Error).message ?? error) });
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref(),
    ),
  ]);
}
