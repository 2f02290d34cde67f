import { Module } from '@nestjs/common';
import { AuthModule } from '#auth';
import { DatabaseModule } from '#database';
import { OutboundModule } from '#outbound';
import { DomainVerificationRecheck, DomainVerifier } from './connections/domain-verifier.js';
import { IdpMetadataRefresh } from './connections/metadata-refresh.js';
import { SsoConnectionsService } from './connections/sso-connections.service.js';
import { SamlSignIn } from './sign-in/saml-sign-in.js';
import { SsoSignInService } from './sign-in/sso-sign-in.service.js';

/** Enterprise single sign-on: the organisations' SAML and LDAP connections (issue 17). */
@Module({
  imports: [DatabaseModule, OutboundModule, AuthModule],
  providers: [SsoConnectionsService, SsoSignInService, SamlSignIn, DomainVerifier],
  exports: [SsoConnectionsService, SsoSignInService],
})
export class SsoModule {}

/** The worker's side: the daily refresh of IdP metadata read from a URL, and domain re-checks. */
@Module({
  imports: [DatabaseModule, OutboundModule],
  providers: [IdpMetadataRefresh, DomainVerifier, DomainVerificationRecheck],
  exports: [IdpMetadataRefresh, DomainVerificationRecheck],
})
export class SsoWorkModule {}
