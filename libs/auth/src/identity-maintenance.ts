import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { PeriodicTasks, RedisService } from '#queue';
import { OidcPayloadsRepository } from './oidc-payloads.repository.js';
import { SigningKeysRepository } from './signing-keys.repository.js';
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
export class IdentityMaintenance implements OnModuleInit {
  private readonly logger = new Logger(IdentityMaintenance.name);

  constructor(
    private readonly settings: AppSettings,
    private readonly keys: SigningKeyService,
    private readonly sql: Sql,
    private readonly signingKeys: SigningKeysRepository,
    private readonly payloads: OidcPayloadsRepository,
    private readonly redis: RedisService,
    private readonly tasks: PeriodicTasks,
  ) {}

  onModuleInit(): void {
    this.tasks.register({
      name: 'identity.maintain',
      everyMs: RUN_EVERY_MS,
      run: async () => {
        const { rotatedTo, expiredDeleted } = await this.runOnce();
        if (rotatedTo) this.logger.log({ kid: rotatedTo }, 'signing key rotated');
        return { expiredDeleted };
      },
    });
  }

  async runOnce(): Promise<{ rotatedTo: string | null; expiredDeleted: number }> {
    const rotatedTo = await this.rotateIfDue();
    const expiredDeleted = await this.sql.transaction((tx) => this.payloads.deleteExpired(tx));
    return { rotatedTo, expiredDeleted };
  }

  private async rotateIfDue(): Promise<string | null> {
    const days = this.settings.signingKeyRotationDays;
    if (days === 0) return null;
    const newest = await this.signingKeys.newestCreatedAt();
    if (!newest || Date.now() - newest.getTime() < days * DAY_MS) return null;
    // One worker rotates, even should two runs overlap; the others see the new key next hour.
    const lock = `${this.settings.redisPrefix}:locks:signing-key-rotation`;
    const acquired = await this.redis.client.set(lock, '1', 'PX', 5 * 60 * 1000, 'NX');
    if (acquired !== 'OK') return null;
    return this.keys.rotate(KEY_PUBLISH_LEAD_MS);
  }
}
