import { TypeOrmModule } from '@nestjs/typeorm';
import { Module } from '@nestjs/common';
import { ApiKeysModule } from '#api-keys';
import { DatabaseModule } from '#database';
import { OrganizationsModule } from '#organizations';
import { AccessTokenService } from './access-tokens.js';
import { CredentialResolver } from './credentials.js';
import { IdentityBootstrap } from './identity-bootstrap.js';
import { IdentityMaintenance } from './identity-maintenance.js';
import { OAuthClientRegistryService } from './oauth-client-registry.service.js';
import { OAuthClientsService } from './oauth-clients.service.js';
import { RevokedGrants } from './revoked-grants.js';
import { AccountSignOut } from './account-sign-out.js';
import { VerifiedTokenCache } from './verified-token-cache.js';
import { ProvisionedPeopleRepository } from './provisioned-people.repository.js';
import { ServerSecretsService } from './server-secrets.service.js';
import { SigningKeyService } from './signing-keys.service.js';
import { UsersService } from './users.service.js';
import { AUTH_ENTITIES } from './entities.js';
import { OAuthClientsRepository } from './oauth-clients.repository.js';
import { OidcPayloadsRepository } from './oidc-payloads.repository.js';
import { ServerSecretsRepository } from './server-secrets.repository.js';
import { SigningKeysRepository } from './signing-keys.repository.js';
import { UsersRepository } from './users.repository.js';

const REPOSITORIES = [
  UsersRepository,
  OAuthClientsRepository,
  OidcPayloadsRepository,
  SigningKeysRepository,
  ServerSecretsRepository,
  ProvisionedPeopleRepository,
];

/** Credentials and identities: tokens, signing keys, OAuth clients, local accounts (both apps). */
@Module({
  imports: [
    TypeOrmModule.forFeature(AUTH_ENTITIES),
    DatabaseModule,
    ApiKeysModule,
    OrganizationsModule,
  ],
  providers: [
    ...REPOSITORIES,
    SigningKeyService,
    AccessTokenService,
    OAuthClientsService,
    OAuthClientRegistryService,
    CredentialResolver,
    UsersService,
    ServerSecretsService,
    RevokedGrants,
    AccountSignOut,
    VerifiedTokenCache,
  ],
  exports: [
    ...REPOSITORIES,
    SigningKeyService,
    AccessTokenService,
    OAuthClientsService,
    OAuthClientRegistryService,
    CredentialResolver,
    UsersService,
    ServerSecretsService,
    RevokedGrants,
    AccountSignOut,
    VerifiedTokenCache,
  ],
})
export class AuthModule {}

/**
 * At the API's start: the first signing key and, from the environment, the
 * operator organisation, its client and its administrator.
 */
@Module({
  imports: [AuthModule, OrganizationsModule],
  providers: [IdentityBootstrap],
})
export class AuthBootstrapModule {}

/** The worker's identity housekeeping: signing-key rotation and expired authorization data. */
@Module({
  imports: [AuthModule, DatabaseModule],
  providers: [IdentityMaintenance],
  exports: [IdentityMaintenance],
})
export class AuthWorkModule {}
