import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { openSealedSecret, sealSecret } from '#common';

/**
 * Random secrets every API instance must agree on (the authorization server's
 * cookie-signing keys). The first instance to ask creates one; the rest read it.
 */
@Injectable()
export class ServerSecretsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly settings: AppSettings,
  ) {}

  async get(name: string): Promise<string> {
    const fresh = sealSecret(randomBytes(32).toString('base64url'), this.settings.signingKeySecret);
    await this.dataSource.query(
      'INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
      [name, fresh],
    );
    const [row]: { value: string }[] = await this.dataSource.query(
      'SELECT value FROM server_secrets WHERE name = $1',
      [name],
    );
    return openSealedSecret(row!.value, this.settings.signingKeySecret);
  }
}
