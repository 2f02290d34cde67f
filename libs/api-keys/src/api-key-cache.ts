import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { AppSettings } from '#config';
import type { ApiKeyEntity } from './api-key.entity.js';
import { RedisService } from '#queue';

/** How long a verified key is trusted from memory before the database is asked again. */
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * Keys verified recently, by the hex SHA-256 of the key. A revocation or
 * rotation in any API instance is published on Redis, and every instance drops
 * the entry at once; the TTL only bounds staleness if a message is lost
 * (Redis restarting), it is not what makes revocation take effect.
 */
@Injectable()
export class ApiKeyCache implements OnModuleInit {
  private readonly logger = new Logger(ApiKeyCache.name);
  private readonly entries = new Map<string, { key: ApiKeyEntity; cachedAt: number }>();
  private readonly channel: string;

  constructor(
    private readonly redis: RedisService,
    settings: AppSettings,
  ) {
    this.channel = `${settings.redisPrefix}:api-keys:invalidate`;
  }

  async onModuleInit(): Promise<void> {
    await this.redis.listen(this.channel, {
      message: (hash) => this.entries.delete(hash),
      // Entries cached before a reconnect may have missed messages meanwhile.
      connected: () => this.entries.clear(),
    });
  }

  get(hash: string): ApiKeyEntity | null {
    const entry = this.entries.get(hash);
    if (!entry) return null;
    if (Date.now() - entry.cachedAt < TTL_MS) return entry.key;
    this.entries.delete(hash);
    return null;
  }

  set(hash: string, key: ApiKeyEntity): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { key, cachedAt: Date.now() });
  }

  /** Drops the key here and in every other instance. */
  async invalidate(hash: string): Promise<void> {
    this.entries.delete(hash);
    try {
      await this.redis.client.publish(this.channel, hash);
    } catch (error) {
      // Other instances fall back to the TTL; say so loudly, it delays a revocation.
      this.logger.error(
        { err: error },
        'could not broadcast an API key invalidation; other instances may accept it for 30 s',
      );
    }
  }
}
