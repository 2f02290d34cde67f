import { Injectable, Logger } from '@nestjs/common';
import type { Tenant } from '#common';
import { AppSettings } from '#config';
import { RedisService } from '#queue';

/**
 * Counts authenticated requests per organisation, mode and minute in Redis,
 * shared by every API instance. The plan and tier limits build on these counts.
 * A Redis outage must not fail requests, so errors are logged and ignored.
 */
@Injectable()
export class UsageMeter {
  private readonly logger = new Logger(UsageMeter.name);

  constructor(
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
  ) {}

  async record(tenant: Tenant): Promise<void> {
    const minute = Math.floor(Date.now() / 60_000);
    const key = `${this.settings.redisPrefix}:usage:${tenant.organizationId}:${tenant.mode}:${minute}`;
    try {
      await this.redis.client
        .multi()
        .incr(key)
        .expire(key, 2 * 3600)
        .exec();
    } catch (error) {
      this.logger.warn({ err: error }, 'usage counter unavailable');
    }
  }
}
