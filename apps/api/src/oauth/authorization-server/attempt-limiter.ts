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
/* Guessing passwords on the sign-in forms has its own rules: sign-in-limiter.ts. */

/**
 * Failed-attempt counters in Redis, shared by every API instance. They count
 * what was tried, not what exists, so a blocked answer says nothing about
 * whether the client or account is real.
 */
@Injectable()
export class AttemptLimiter {
  constructor(
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
  ) {}

  /** Seconds until another attempt is allowed, or 0 when it is allowed now. */
  async retryAfter(
    policy: AttemptPolicy,
    kind: string,
    identifier: string | undefined,
    address: string,
  ): Promise<number> {
    const keys = this.keys(kind, identifier, address);
    // One transaction per key: on a Redis Cluster the address's and the
    // identifier's counters may sit on different nodes.
    const replies = await Promise.all(
      keys.map(({ key }) => this.redis.client.multi().get(key).pttl(key).exec()),
    );
    let wait = 0;
    keys.forEach(({ identifierKey }, index) => {
      const count = Number(replies[index]?.[0]?.[1] ?? 0);
      const ttl = Number(replies[index]?.[1]?.[1] ?? 0);
      const limit = identifierKey ? policy.perIdentifier : policy.perAddress;
      if (count >= limit) wait = Math.max(wait, Math.ceil(Math.max(ttl, 1000) / 1000));
    });
    return wait;
  }

  async recordFailure(
    policy: AttemptPolicy,
    kind: string,
    identifier: string | undefined,
    address: string,
  ): Promise<void> {
    // One transaction per key (a cluster may keep them on different nodes). NX: the
    // window starts at the first failure and is not pushed back by later ones.
    await Promise.all(
      this.keys(kind, identifier, address).map(({ key }) =>
        this.redis.client.multi().incr(key).expire(key, policy.windowSeconds, 'NX').exec(),
      ),
    );
  }

  /** A success forgives the identifier's failures (not the address's). */
  async recordSuccess(kind: string, identifier: string): Promise<void> {
    await this.redis.client.del(this.key(kind, 'id', identifier.toLowerCase()));
  }

  private keys(kind: string, identifier: string | undefined, address: string) {
    const keys = [{ key: this.key(kind, 'ip', address), identifierKey: false }];
    if (identifier) {
      keys.push({ key: this.key(kind, 'id', identifier.toLowerCase()), identifierKey: true });
    }
    return keys;
  }

  /** Identifiers are hashed: the keys must not hold emails. */
  private key(kind: string, type: string, value: string): string {
    const digest = createHash('sha256').update(value).digest('base64url').slice(0, 22);
    return `${this.settings.redisPrefix}:attempts:${kind}:${type}:${digest}`;
  }
}
