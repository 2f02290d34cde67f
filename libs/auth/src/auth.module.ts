import { Module } from '@nestjs/common';
import { ApiKeysModule } from '#api-keys';
import { DatabaseModule } from '#database';
import { OrganizationsModule } from '#organizations';
import { AccessTokenService } from './access-tokens.js';
import { CredentialResolver } from './credentials.js';
import { OAuthClientRegistryService } from './oauth-client-registry.service.js';
import { OAuthClientsService } from './oauth-clients.service.js';
import { SigningKeyService } from './signing-keys.service.js';
import { UsersService } from './users.service.js';
import { ServerSecretsService } from './server-secrets.service.js';
import { RevokedGrants } from './revoked-grants.js';

@Module({
  imports: [DatabaseModule, ApiKeysModule, OrganizationsModule],
  providers: [
    SigningKeyService,
    AccessTokenService,
    OAuthClientsService,
    OAuthClientRegistryService,
    CredentialResolver,
    UsersService,
    ServerSecretsService,
    RevokedGrants,
  ],
  exports: [
    SigningKeyService,
    AccessTokenService,
    OAuthClientsService,
    OAuthClientRegistryService,
    CredentialResolver,
    UsersService,
    ServerSecretsService,
    RevokedGrants,
    ApiKeysModule,
    OrganizationsModule,
  ],
})
export class AuthModule {}
