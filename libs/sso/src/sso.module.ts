import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '#auth';
import { DatabaseModule } from '#database';
import { OutboundModule } from '#outbound';
import { DomainVerificationRecheck, DomainVerifier } from './connections/domain-verifier.js';
import { IdpMetadataRefresh } from './connections/metadata-refresh.js';
import { SsoConnectionsRepository } from './connections/sso-connections.repository.js';
import { SsoConnectionsService } from './connections/sso-connections.service.js';
import { SsoEmailDomainsRepository } from './connections/sso-email-domains.repository.js';
import { SSO_ENTITIES } from './entities.js';
import { SamlSignIn } from './sign-in/saml-sign-in.js';
import { SsoSignInService } from './sign-in/sso-sign-in.service.js';

const REPOSITORIES = [SsoConnectionsRepository, SsoEmailDomainsRepository];

/** Enterprise single sign-on: the organisations' SAML and LDAP connections (issue 17). */
@Module({
  imports: [TypeOrmModule.forFeature(SSO_ENTITIES), DatabaseModule, OutboundModule, AuthModule],
  providers: [...REPOSITORIES, SsoConnectionsService, SsoSignInService, SamlSignIn, DomainVerifier],
  exports: [SsoConnectionsService, SsoSignInService],
})
export class SsoModule {}

/** The worker's side: the daily refresh of IdP metadata read from a URL, and domain re-checks. */
@Module({
  imports: [TypeOrmModule.forFeature(SSO_ENTITIES), DatabaseModule, OutboundModule],
  providers: [...REPOSITORIES, IdpMetadataRefresh, DomainVerifier, DomainVerificationRecheck],
  exports: [IdpMetadataRefresh, DomainVerificationRecheck],
})
export class SsoWorkModule {}
