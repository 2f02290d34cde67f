import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { openSealedSecret, sealSecret } from '#common';
import { ServerSecretsRepository } from './server-secrets.repository.js';

/**
 * Random secrets every API instance must agree on (the authorization server's
 * cookie-signing keys). The first instance to ask creates one; the rest read it.
 */
@Injectable()
export class ServerSecretsService {
  constructor(
    private readonly sql: Sql,
    private readonly secrets: ServerSecretsRepository,
    private readonly settings: AppSettings,
  ) {}

  async get(name: string): Promise<string> {
    const fresh = sealSecret(randomBytes(32).toString('base64url'), this.settings.signingKeySecret);
    const value = await this.sql.transaction(async (tx) => {
      await this.secrets.insertIfAbsent(tx, name, fresh);
      return this.secrets.find(name, tx);
    });
    return openSealedSecret(value!, this.settings.signingKeySecret);
  }
}
