import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppSettings } from '#config';

/** The process's general-purpose Redis connection (counters, pub/sub publishing, health). */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  readonly client: Redis;

  constructor(settings: AppSettings) {
    // Fail commands fast while Redis is away instead of queueing them forever.
    this.client = new Redis(settings.redisUrl, { maxRetriesPerRequest: 2 });
    // Connection errors are retried by ioredis; health checks report them.
    this.client.on('error', () => undefined);
  }

  /** A separate connection in subscriber mode (a subscribed connection cannot run other commands). */
  subscriber(): Redis {
    const connection = this.client.duplicate();
    connection.on('error', () => undefined);
    return connection;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
