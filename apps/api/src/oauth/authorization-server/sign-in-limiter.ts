import { Injectable } from '@nestjs/common';
import { RedisService } from '#queue';
import { AttemptLimiter } from './attempt-limiter.js';

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
    private readonly attempts: AttemptLimiter,
    private readonly redis: RedisService,
  ) {}

  /** How long before this address may try this account again; null when it may now. */
  async wait(email: string, address: string): Promise<SignInWait | null> {
    const keys = this.keys(email, address);
    const [locked, spacingMs] = await Promise.all([
      this.attempts.blockedFor([
        { key: keys.pair, limit: SIGN_IN_LIMITS.perAccountAndAddress },
        { key: keys.address, limit: SIGN_IN_LIMITS.perAddress },
      ]),
      this.redis.client.pttl(keys.spacing),
    ]);
    if (locked > 0) return { seconds: locked, reason: 'locked' };
    return spacingMs > 0 ? { seconds: Math.ceil(spacingMs / 1000), reason: 'slowed' } : null;
  }

  async recordFailure(email: string, address: string): Promise<void> {
    const keys = this.keys(email, address);
    const [, , accountFailures] = await this.attempts.count(
      [keys.pair, keys.address, keys.account],
      SIGN_IN_LIMITS.windowSeconds,
    );
    const spacing = accountSpacingSeconds(accountFailures!);
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
    const key = (type: string, value: string) => this.attempts.key('sign-in', type, value);
    return {
      pair: key('pair', `${account}\n${address}`),
      address: key('ip', address),
      account: key('account', account),
      spacing: key('account-spacing', account),
    };
  }
}
