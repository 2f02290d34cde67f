import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppSettings } from '#config';

/** The process's general-purpose Redis connection (counters, pub/sub publishing, health). */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  readonly client: Redis;

  constructor(settings: AppSettings) {
    // Fail commands fast while Redis is away instead of queueing them forever. Every
    // authenticated request counts itself here: commands issued in the same tick by
    // concurrent requests go out in one write (auto-pipelining), not one syscall each.
    this.client = new Redis(settings.redisUrl, {
      maxRetriesPerRequest: 2,
      enableAutoPipelining: true,
    });
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
