import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AppSettings } from '#config';
import { OrganizationsService } from '#organizations';
import { OAuthClientsService } from './oauth-clients.service.js';
import { SigningKeyService } from './signing-keys.service.js';

/**
 * At start-up: the first signing key, and, when BOOTSTRAP_CLIENT_ID/SECRET are
 * set, the operator organisation and its confidential client with every scope.
 */
@Injectable()
export class IdentityBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger(IdentityBootstrap.name);

  constructor(
    private readonly settings: AppSettings,
    private readonly keys: SigningKeyService,
    private readonly organizations: OrganizationsService,
    private readonly clients: OAuthClientsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.keys.ensureKey();
    const bootstrap = this.settings.bootstrapClient;
    if (bootstrap === null) {
      this.logger.log('BOOTSTRAP_CLIENT_ID is not set: no bootstrap client is created');
      return;
    }
    const organization = await this.organizations.ensureBootstrap();
    await this.clients.ensureBootstrapClient(
      organization.id,
      bootstrap.clientId,
      bootstrap.clientSecret,
    );
    this.logger.log(
      { clientId: bootstrap.clientId },
      'bootstrap organisation and client are ready',
    );
  }
}
