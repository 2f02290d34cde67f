import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AppSettings } from '#config';
import { OrganizationsService } from '#organizations';
import { OAuthClientsService } from './oauth-clients.service.js';
import { SigningKeyService } from './signing-keys.service.js';
import { UsersService } from './users.service.js';

/**
 * At start-up: the first signing key, and, when BOOTSTRAP_CLIENT_ID/SECRET are
 * set, the operator organisation and its confidential client with every scope,
 * plus its administrator's local account when BOOTSTRAP_ADMIN_EMAIL/PASSWORD are.
 */
@Injectable()
export class IdentityBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger(IdentityBootstrap.name);

  constructor(
    private readonly settings: AppSettings,
    private readonly keys: SigningKeyService,
    private readonly organizations: OrganizationsService,
    private readonly clients: OAuthClientsService,
    private readonly users: UsersService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.keys.ensureKey();
    const { bootstrapClient: client, bootstrapAdmin: admin } = this.settings;
    if (client === null && admin === null) {
      this.logger.log(
        'BOOTSTRAP_CLIENT_ID and BOOTSTRAP_ADMIN_EMAIL are not set: nothing to bootstrap',
      );
      return;
    }
    const organization = await this.organizations.ensureBootstrap();
    if (client !== null) {
      await this.clients.ensureBootstrapClient(
        organization.id,
        client.clientId,
        client.clientSecret,
      );
      this.logger.log({ clientId: client.clientId }, 'bootstrap organisation and client are ready');
    }
    if (admin !== null) {
      await this.users.ensureLocalAccount(organization.id, admin.email, admin.password);
      this.logger.log({ email: admin.email }, 'bootstrap administrator can sign in');
    }
  }
}
