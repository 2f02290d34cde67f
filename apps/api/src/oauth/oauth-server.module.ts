import { Module } from '@nestjs/common';
import { AuthModule } from '#auth';
import { DatabaseModule } from '#database';
import { OrganizationsModule } from '#organizations';
import { SsoModule } from '#sso';
import { AttemptLimiter } from './authorization-server/attempt-limiter.js';
import { AuthorizationServer } from './authorization-server/authorization-server.js';
import { EndpointRateLimiter } from './authorization-server/endpoint-rate-limiter.js';
import { InteractionController } from './authorization-server/interaction.controller.js';
import { Interactions } from './authorization-server/interactions.js';
import { SsoInteractionController } from './authorization-server/sso-interaction.controller.js';
import { JwtIntrospection } from './authorization-server/jwt-introspection.js';
import { SignInLimiter } from './authorization-server/sign-in-limiter.js';
import { WellKnownController } from './well-known.controller.js';

/**
 * The OAuth 2.0 authorization server: the provider (mounted on Express by
 * app.ts, outside Nest's routing), its sign-in and consent pages, and the
 * discovery documents.
 */
@Module({
  imports: [AuthModule, DatabaseModule, OrganizationsModule, SsoModule],
  controllers: [InteractionController, SsoInteractionController, WellKnownController],
  providers: [
    AuthorizationServer,
    AttemptLimiter,
    EndpointRateLimiter,
    JwtIntrospection,
    Interactions,
    SignInLimiter,
  ],
  exports: [AuthorizationServer],
})
export class OAuthServerModule {}
