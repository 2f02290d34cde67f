import { Module } from '@nestjs/common';
import { ApiKeysModule } from '#api-keys';
import { DatabaseModule } from '#database';
import { OrganizationsModule } from '#organizations';
import { AccessTokenService } from './access-tokens.js';
import { CredentialResolver } from './credentials.js';
import { OAuthClientsService } from './oauth-clients.service.js';
import { SigningKeyService } from './signing-keys.service.js';

@Module({
  imports: [DatabaseModule, ApiKeysModule, OrganizationsModule],
  providers: [SigningKeyService, AccessTokenService, OAuthClientsService, CredentialResolver],
  exports: [
    SigningKeyService,
    AccessTokenService,
    OAuthClientsService,
    CredentialResolver,
    ApiKeysModule,
    OrganizationsModule,
  ],
})
export class AuthModule {}
