import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { RedisService } from '#queue';
import { ACCESS_TOKEN_TTL_SECONDS } from './token-constants.js';

/**
 * Grants the authorization server has revoked (a replayed code, a reused
 * refresh token, a revoked refresh token). Access tokens are self-contained
 * JWTs, so the API asks here whether the grant behind a person's token still
 * stands. An entry only needs to outlive the tokens already issued.
 */
@Injectable()
export class RevokedGrants {
  constructor(
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
  ) {}

  async revoke(grantId: string): Promise<void> {
    await this.redis.client.set(this.key(grantId), '1', 'EX', ACCESS_TOKEN_TTL_SECONDS + 60);
  }

  async isRevoked(grantId: string): Promise<boolean> {
    return (await this.redis.client.exists(this.key(grantId))) === 1;
  }

  private key(grantId: string): string {
    return `${this.settings.redisPrefix}:revoked-grants:${grantId}`;
  }
}
