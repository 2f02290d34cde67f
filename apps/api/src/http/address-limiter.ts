import { Injectable, Logger } from '@nestjs/common';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { AppSettings } from '#config';
import { RedisService } from '#queue';
import type { LimitVerdict, WindowState } from './request-limiter.js';

const WARN_EVERY_MS = 10_000;

/**
 * The budget of requests no credential is known for — none, or one that does
 * not resolve: public endpoints, 401s, unknown routes — per source address
 * (`request.ip`, so behind TRUSTED_PROXIES the client's), a minute at a time
 * (ANONYMOUS_RATE_PER_ADDRESS). Counted in Redis by rate-limiter-flexible,
 * shared by every instance, in the same shape as the organisations' windows
 * (RequestLimiter) so the same headers and 429 describe it. If Redis cannot
 * count, the request is served without limit headers whatever
 * RATE_LIMIT_ON_REDIS_FAILURE says: an outage must not fail health probes.
 */
@Injectable()
export class AddressLimiter {
  private readonly logger = new Logger(AddressLimiter.name);
  private readonly limiter: RateLimiterRedis;
  private readonly seconds: number;
  private lastWarning = 0;

  constructor(
    redis: RedisService,
    private readonly settings: AppSettings,
  ) {
    this.seconds = Math.max(1, Math.round(60 * settings.rateLimits.windowScale));
    this.limiter = new RateLimiterRedis({
      storeClient: redis.client,
      keyPrefix: `${settings.redisPrefix}:rate:address`,
      // The counter only counts; check() compares with the limit, as RequestLimiter does.
      points: Number.MAX_SAFE_INTEGER,
      duration: this.seconds,
      rejectIfRedisNotReady: true,
    });
  }

  /** Counts one request from `address`; null when limits are off or Redis could not count it. */
  async check(address: string): Promise<LimitVerdict | null> {
    if (!this.settings.rateLimits.enabled) return null;
    const limit = this.settings.rateLimits.anonymousPerAddress;
    try {
      const result = await this.limiter.consume(address);
      const window: WindowState = {
        name: 'minute',
        setting: 'requests_per_minute_per_address',
        limit,
        used: result.consumedPoints,
        remaining: Math.max(0, limit - result.consumedPoints),
        seconds: this.seconds,
        resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
      };
      return { windows: [window], exceeded: window.used > limit ? window : null };
    } catch (error) {
      const now = Date.now();
      if (now - this.lastWarning > WARN_EVERY_MS) {
        this.lastWarning = now;
        this.logger.warn(
          { err: error },
          'requests per address cannot be counted (Redis unavailable)',
        );
      }
      return null;
    }
  }
}
