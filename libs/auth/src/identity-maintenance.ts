import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { RedisService } from '#queue';
import { SigningKeyService } from './signing-keys.service.js';

const RUN_EVERY_MS = 60 * 60 * 1000;
/** A new key is in the JWKS this long before it signs: well over the JWKS's cache lifetime (5 minutes). */
export const KEY_PUBLISH_LEAD_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The worker's hourly identity housekeeping: replaces the signing key when it
 * reaches SIGNING_KEY_ROTATION_DAYS (published an hour before it signs; the
 * old one stays published until its tokens have expired), and deletes the
 * authorization server's expired codes, tokens, sessions and interactions.
 */
@Injectable()
export class IdentityMaintenance implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IdentityMaintenance.name);
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly settings: AppSettings,
    private readonly keys: SigningKeyService,
    private readonly sql: Sql,
    private readonly redis: RedisService,
  ) {}

  onApplicationBootstrap(): void {
    // The first run waits 30 to 60 s, so workers started together do not all run at once.
    const first = setTimeout(() => void this.runSafely(), 30_000 + Math.random() * 30_000);
    const hourly = setInterval(() => void this.runSafely(), RUN_EVERY_MS);
    this.timers = [first, hourly];
    for (const timer of this.timers) timer.unref();
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }

  async runOnce(): Promise<{ rotatedTo: string | null; expiredDeleted: number }> {
    const rotatedTo = await this.rotateIfDue();
    const deleted = await this.sql.rows<{ count: string }>(
      `WITH gone AS (DELETE FROM oidc_payloads WHERE expires_at < now() RETURNING 1)
       SELECT count(*) AS count FROM gone`,
      [],
    );
    return { rotatedTo, expiredDeleted: Number(deleted[0]?.count ?? 0) };
  }

  private async runSafely(): Promise<void> {
    try {
      const { rotatedTo, expiredDeleted } = await this.runOnce();
      if (rotatedTo) this.logger.log({ kid: rotatedTo }, 'signing key rotated');
      if (expiredDeleted > 0)
        this.logger.log({ expiredDeleted }, 'expired authorization data deleted');
    } catch (error) {
      this.logger.warn({ err: error }, 'identity maintenance failed; retrying in an hour');
    }
  }

  private async rotateIfDue(): Promise<string | null> {
    const days = this.settings.signingKeyRotationDays;
    if (days === 0) return null;
    const [newest] = await this.sql.rows<{ created_at: Date }>(
      'SELECT created_at FROM signing_keys ORDER BY created_at DESC LIMIT 1',
      [],
    );
    if (!newest || Date.now() - newest.created_at.getTime() < days * DAY_MS) return null;
    // One worker rotates; the others see the new key next hour.
    const lock = `${this.settings.redisPrefix}:locks:signing-key-rotation`;
    const acquired = await this.redis.client.set(lock, '1', 'PX', 5 * 60 * 1000, 'NX');
    if (acquired !== 'OK') return null;
    return this.keys.rotate(KEY_PUBLISH_LEAD_MS);
  }
}
