import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AppSettings } from '#config';
import { OrganizationsService } from '#organizations';
import { DASHBOARD_CALLBACK_PATH, DASHBOARD_CLIENT_IDS } from './dashboard-clients.js';
import { OAuthClientsService } from './oauth-clients.service.js';
import { SigningKeyService } from './signing-keys.service.js';
import { UsersService } from './users.service.js';

/**
 * At start-up: the first signing key, and, when BOOTSTRAP_CLIENT_ID/SECRET are
 * set, the operator organisation and its confidential client with every scope,
 * plus its administrator's local account when BOOTSTRAP_ADMIN_EMAIL/PASSWORD are.
 * Always: the dashboard's two public clients (one per mode), held by the
 * operator organisation but first-party (dashboard-clients.ts).
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
    const organization = await this.organizations.ensureBootstrap();
    const callback = `${this.settings.publicUrl}${DASHBOARD_CALLBACK_PATH}`;
    for (const mode of ['live', 'test'] as const) {
      await this.clients.ensureDashboardClient(
        organization.id,
        mode,
        DASHBOARD_CLIENT_IDS[mode],
        callback,
      );
    }
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
