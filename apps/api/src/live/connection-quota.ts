import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppError, type Tenant } from '#common';
import { AppSettings } from '#config';
import { RedisService } from '#queue';

/**
 * Takes a place when the organisation and mode hold fewer than the limit:
 * drops places whose lease ran out (an instance that died without
 * releasing), then counts and adds, in one atomic step.
 * KEYS[1] the set; ARGV: now (ms), lease end (ms), connection id, limit, key TTL (ms).
 */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local open = redis.call('ZCARD', KEYS[1])
if open >= tonumber(ARGV[4]) then return open end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return -1
`;

/** A place held by one open connection. */
export interface ConnectionPlace {
  readonly key: string;
  readonly id: string;
}

/**
 * At most WS_MAX_CONNECTIONS_PER_ORGANIZATION live-update connections per
 * organisation and mode, across every API instance: each connection holds a
 * member of a Redis sorted set scored by the end of its lease, renewed at
 * every heartbeat and removed when it closes, so a crashed instance's places
 * free themselves within a few heartbeats. While Redis cannot count, the
 * deployment's RATE_LIMIT_ON_REDIS_FAILURE decides, as for request limits.
 */
@Injectable()
export class ConnectionQuota {
  private readonly logger = new Logger(ConnectionQuota.name);

  constructor(
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
  ) {}

  private get leaseMs(): number {
    // Three heartbeats: a live connection renews its lease at every one.
    return 3 * this.settings.wsHeartbeatSeconds * 1000;
  }

  /** A place for a new connection, null when Redis could not count (and failures are allowed). */
  async acquire(tenant: Tenant): Promise<ConnectionPlace | null> {
    const limit = this.settings.wsMaxConnectionsPerOrganization;
    const place = { key: this.keyOf(tenant), id: randomUUID() };
    const now = Date.now();
    let open: number;
    try {
      open = (await this.redis.client.eval(
        ACQUIRE,
        1,
        place.key,
        now,
        now + this.leaseMs,
        place.id,
        limit,
        2 * this.leaseMs,
      )) as number;
    } catch (error) {
      if (this.settings.rateLimits.onRedisFailure === 'deny') {
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'Live-update connections cannot be counted right now; connect again shortly',
          { issue: 'Redis is unavailable' },
          { 'Retry-After': '5' },
        );
      }
      this.logger.warn({ err: error }, 'live-update connections not counted: Redis unavailable');
      return null;
    }
    if (open === -1) return place;
    throw new AppError(
      'RATE_LIMITED',
      `Your organisation has ${open} live-update connections open in this mode, the most allowed`,
      {
        field: 'ws_connections',
        issue: `at most ${limit} live-update connections per organisation and mode (WS_MAX_CONNECTIONS_PER_ORGANIZATION); close one, or subscribe to "*" on one connection`,
        limit,
      },
      { 'Retry-After': String(this.settings.wsHeartbeatSeconds) },
    );
  }

  /** Extends the lease of an open connection (at every heartbeat). */
  async renew(place: ConnectionPlace): Promise<void> {
    await this.redis.client
      .zadd(place.key, 'XX', Date.now() + this.leaseMs, place.id)
      .catch((error: unknown) => this.logger.debug({ err: error }, 'lease not renewed'));
  }

  async release(place: ConnectionPlace): Promise<void> {
    await this.redis.client
      .zrem(place.key, place.id)
      .catch((error: unknown) => this.logger.debug({ err: error }, 'place not released'));
  }

  private keyOf(tenant: Tenant): string {
    return `${this.settings.redisPrefix}:ws-connections:${tenant.organizationId}:${tenant.mode}`;
  }
}
