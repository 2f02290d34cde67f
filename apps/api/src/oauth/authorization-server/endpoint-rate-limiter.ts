import { Injectable } from '@nestjs/common';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppSettings } from '#config';
import { RedisService } from '#queue';

/**
 * Requests a minute to the sign-in machinery, whatever their outcome: per
 * client and per source address at the token, introspection and revocation
 * endpoints, per address at the sign-in form. Stricter than the API's plan
 * limits because these endpoints need no organisation to be hit, and they
 * sit beside AttemptLimiter, which counts failures (guessing). Counted in
 * Redis by rate-limiter-flexible, shared by every instance; if Redis cannot
 * count, the request goes through (its failures are still limited).
 */
@Injectable()
export class EndpointRateLimiter {
  private readonly tokenPerClient: RateLimiterRedis;
  private readonly tokenPerAddress: RateLimiterRedis;
  private readonly signInPerAddress: RateLimiterRedis;

  constructor(redis: RedisService, settings: AppSettings) {
    const limiter = (name: string, points: number) =>
      new RateLimiterRedis({
        storeClient: redis.client,
        keyPrefix: `${settings.redisPrefix}:rate:${name}`,
        points,
        duration: Math.max(1, Math.round(60 * settings.rateLimits.windowScale)),
        rejectIfRedisNotReady: true,
      });
    const limits = settings.rateLimits;
    this.tokenPerClient = limiter('token-client', limits.tokenPerClient);
    this.tokenPerAddress = limiter('token-address', limits.tokenPerAddress);
    this.signInPerAddress = limiter('sign-in-address', limits.signInPerAddress);
  }

  /** Seconds until the client or address may call the token endpoints again; 0 now. */
  async token(clientId: string | undefined, address: string): Promise<number> {
    const waits = await Promise.all([
      clientId === undefined ? 0 : wait(this.tokenPerClient, clientId),
      wait(this.tokenPerAddress, address),
    ]);
    return Math.max(...waits);
  }

  /** Seconds until the address may submit the sign-in form again; 0 now. */
  signIn(address: string): Promise<number> {
    return wait(this.signInPerAddress, address);
  }
}

async function wait(limiter: RateLimiterRedis, key: string): Promise<number> {
  try {
    await limiter.consume(key);
    return 0;
  } catch (outcome) {
    // A RateLimiterRes is a refusal; anything else is Redis failing to count.
    return outcome instanceof RateLimiterRes
      ? Math.max(1, Math.ceil(outcome.msBeforeNext / 1000))
      : 0;
  }
}
