import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { RedisService } from '#queue';

export const SIGN_IN_LIMITS = {
  /** Failed passwords for one account from one address before that pair is locked out. */
  perAccountAndAddress: 5,
  /** Failed passwords from one address, whatever accounts it tries, before it is locked out. */
  perAddress: 50,
  /** How long failures are counted, and so how long a lock lasts. */
  windowSeconds: 900,
  /** Failed passwords for one account, from anywhere, before its attempts are spaced out. */
  accountFailuresBeforeSlowing: 10,
  /** The longest an account's attempts are spaced, however many failures it has. */
  maxAccountSpacingSeconds: 60,
} as const;

/**
 * Seconds between two attempts on an account after `failures` failed ones in
 * the window: none up to the threshold, then 1, 2, 4 … up to the maximum.
 */
export function accountSpacingSeconds(failures: number): number {
  const beyond = failures - SIGN_IN_LIMITS.accountFailuresBeforeSlowing;
  if (beyond <= 0) return 0;
  return Math.min(SIGN_IN_LIMITS.maxAccountSpacingSeconds, 2 ** Math.min(beyond - 1, 16));
}

export interface SignInWait {
  seconds: number;
  /** `locked`: this address, for this account or for every account; `slowed`: the account, from anywhere. */
  reason: 'locked' | 'slowed';
}

/**
 * Failed passwords on the sign-in forms, counted in Redis (shared by every
 * instance). An address that guesses is locked out — of one account after a
 * few failures, of all after many — but the account itself is never locked:
 * an attacker failing from elsewhere would otherwise lock its owner (the
 * operator's admin too) out. Account-wide failures only space attempts out,
 * at most SIGN_IN_LIMITS.maxAccountSpacingSeconds apart, which caps guessing
 * from many addresses and costs the owner a short wait. Counters count what
 * was tried, not what exists: an unknown email is treated the same.
 */
@Injectable()
export class SignInLimiter {
  constructor(
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
  ) {}

  /** How long before this address may try this account again; null when it may now. */
  async wait(email: string, address: string): Promise<SignInWait | null> {
    const keys = this.keys(email, address);
    // One transaction per key: on a Redis Cluster they may sit on different nodes.
    const [pair, fromAddress, spacing] = await Promise.all(
      [keys.pair, keys.address, keys.spacing].map((key) =>
        this.redis.client.multi().get(key).pttl(key).exec(),
      ),
    );
    const lockedFor = (reply: typeof pair, limit: number) => {
      const count = Number(reply?.[0]?.[1] ?? 0);
      const ttl = Number(reply?.[1]?.[1] ?? 0);
      return count >= limit ? Math.ceil(Math.max(ttl, 1000) / 1000) : 0;
    };
    const locked = Math.max(
      lockedFor(pair, SIGN_IN_LIMITS.perAccountAndAddress),
      lockedFor(fromAddress, SIGN_IN_LIMITS.perAddress),
    );
    if (locked > 0) return { seconds: locked, reason: 'locked' };
    const spacingMs = Number(spacing?.[1]?.[1] ?? 0);
    return spacingMs > 0 ? { seconds: Math.ceil(spacingMs / 1000), reason: 'slowed' } : null;
  }

  async recordFailure(email: string, address: string): Promise<void> {
    const keys = this.keys(email, address);
    const window = SIGN_IN_LIMITS.windowSeconds;
    // NX: a window starts at its first failure and is not pushed back by later ones.
    const count = (key: string) =>
      this.redis.client.multi().incr(key).expire(key, window, 'NX').exec();
    const [, , account] = await Promise.all([
      count(keys.pair),
      count(keys.address),
      count(keys.account),
    ]);
    const spacing = accountSpacingSeconds(Number(account?.[0]?.[1] ?? 0));
    if (spacing > 0) await this.redis.client.set(keys.spacing, '1', 'EX', spacing);
  }

  /**
   * A success forgives this address's failures on the account. The account's
   * own count stays: an attacker would otherwise get fresh guesses each time
   * the owner signs in.
   */
  async recordSuccess(email: string, address: string): Promise<void> {
    await this.redis.client.del(this.keys(email, address).pair);
  }

  private keys(email: string, address: string) {
    const account = email.toLowerCase();
    return {
      pair: this.key('pair', `${account}\n${address}`),
      address: this.key('ip', address),
      account: this.key('account', account),
      spacing: this.key('account-spacing', account),
    };
  }

  /** Hashed: the keys must not hold emails or addresses. */
  private key(type: string, value: string): string {
    const digest = createHash('sha256').update(value).digest('base64url').slice(0, 22);
    return `${this.settings.redisPrefix}:attempts:sign-in:${type}:${digest}`;
  }
}
