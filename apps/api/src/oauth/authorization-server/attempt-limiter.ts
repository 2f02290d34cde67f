import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { RedisService } from '#queue';

export interface AttemptPolicy {
  /** Failures allowed per window for one identifier (a client_id, an email). */
  perIdentifier: number;
  /** Failures allowed per window from one address, whatever identifiers it tries. */
  perAddress: number;
  windowSeconds: number;
}

/** Guessing client secrets or authorization codes at the token, introspection and revocation endpoints. */
export const TOKEN_ENDPOINT_POLICY: AttemptPolicy = {
  perIdentifier: 10,
  perAddress: 100,
  windowSeconds: 900,
};

/**
 * Failed-attempt counters in Redis, shared by every API instance. They count
 * what was tried, not what exists, so a blocked answer says nothing about
 * whether the client or account is real. The counters themselves (`key`,
 * `blockedFor`, `count`) also serve the sign-in forms' own rules
 * (sign-in-limiter.ts).
 */
@Injectable()
export class AttemptLimiter {
  constructor(
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
  ) {}

  /** Seconds until another attempt is allowed, or 0 when it is allowed now. */
  retryAfter(
    policy: AttemptPolicy,
    kind: string,
    identifier: string | undefined,
    address: string,
  ): Promise<number> {
    return this.blockedFor(
      this.keys(kind, identifier, address).map(({ key, identifierKey }) => ({
        key,
        limit: identifierKey ? policy.perIdentifier : policy.perAddress,
      })),
    );
  }

  async recordFailure(
    policy: AttemptPolicy,
    kind: string,
    identifier: string | undefined,
    address: string,
  ): Promise<void> {
    const keys = this.keys(kind, identifier, address).map(({ key }) => key);
    await this.count(keys, policy.windowSeconds);
  }

  /** Seconds until every counter that reached its limit starts afresh; 0 when none has. */
  async blockedFor(counters: { key: string; limit: number }[]): Promise<number> {
    // One transaction per key: on a Redis Cluster the counters may sit on different nodes.
    const replies = await Promise.all(
      counters.map(({ key }) => this.redis.client.multi().get(key).pttl(key).exec()),
    );
    let wait = 0;
    counters.forEach(({ limit }, index) => {
      const count = Number(replies[index]?.[0]?.[1] ?? 0);
      const ttl = Number(replies[index]?.[1]?.[1] ?? 0);
      if (count >= limit) wait = Math.max(wait, Math.ceil(Math.max(ttl, 1000) / 1000));
    });
    return wait;
  }

  /**
   * Counts one failure on each key, in a window that starts at its first
   * failure and is not pushed back by later ones (NX); the new counts.
   */
  async count(keys: string[], windowSeconds: number): Promise<number[]> {
    const replies = await Promise.all(
      keys.map((key) =>
        this.redis.client.multi().incr(key).expire(key, windowSeconds, 'NX').exec(),
      ),
    );
    return replies.map((reply) => Number(reply?.[0]?.[1] ?? 0));
  }

  /** A counter's key; what it counts by is hashed, so the keys hold no emails or addresses. */
  key(kind: string, type: string, value: string): string {
    const digest = createHash('sha256').update(value).digest('base64url').slice(0, 22);
    return `${this.settings.redisPrefix}:attempts:${kind}:${type}:${digest}`;
  }

  private keys(kind: string, identifier: string | undefined, address: string) {
    const keys = [{ key: this.key(kind, 'ip', address), identifierKey: false }];
    if (identifier) {
      keys.push({ key: this.key(kind, 'id', identifier.toLowerCase()), identifierKey: true });
    }
    return keys;
  }
}
