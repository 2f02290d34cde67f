import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { ApiKeysModule } from '#api-keys';
import { AuthBootstrapModule, AuthModule } from '#auth';
import { ConfigModule, type Settings } from '#config';
import { DatabaseModule } from '#database';
import { OrganizationsModule } from '#organizations';
import { QueueModule } from '#queue';
import { SessionsModule } from '#sessions';
import { EventsModule } from '#events';
import { IdempotencyModule } from '#idempotency';
import { WebhooksModule } from '#webhooks';
import { ApiKeysController } from './api-keys/v1/api-keys-v1.controller.js';
import { BatchesV1Controller } from './batches/v1/batches-v1.controller.js';
import { HealthController } from './health/health.controller.js';
import { MetricsController } from './health/metrics.controller.js';
import { ReadinessChecks } from './health/readiness.js';
import { AuthGuard } from './http/auth.guard.js';
import { DocsController } from './http/docs.controller.js';
import { HttpExceptionFilter } from './http/http-exception.filter.js';
import { loggerOptions } from './http/logging.js';
import { RequestLimiter } from './http/request-limiter.js';
import { EndpointRateLimiter } from './oauth/authorization-server/endpoint-rate-limiter.js';
import { IdempotencyInterceptor } from './http/idempotency/idempotency.interceptor.js';
import { ConnectionQuota } from './live/connection-quota.js';
import { SessionUpdatesGateway } from './live/session-updates.gateway.js';
import { AttemptLimiter } from './oauth/authorization-server/attempt-limiter.js';
import { AuthorizationServer } from './oauth/authorization-server/authorization-server.js';
import { InteractionController } from './oauth/authorization-server/interaction.controller.js';
import { JwtIntrospection } from './oauth/authorization-server/jwt-introspection.js';
import { OAuthClientsController } from './oauth-clients/v1/oauth-clients-v1.controller.js';
import { OrganizationsV2Controller } from './organizations/v2/organizations-v2.controller.js';
import { WellKnownController } from './oauth/well-known.controller.js';
import { SessionsV1Controller } from './sessions/v1/sessions-v1.controller.js';
import { MobileSessionsV2Controller } from './sessions/v2/mobile-sessions-v2.controller.js';
import { SessionTemplatesV2Controller } from './sessions/v2/session-templates-v2.controller.js';
import { PublicSessionsV2Controller } from './sessions/v2/public-sessions-v2.controller.js';
import { SessionsV2Controller } from './sessions/v2/sessions-v2.controller.js';
import { UserProfileController } from './users/v1/user-profile-v1.controller.js';
import { SystemNoticesV2Controller } from './system/v2/system-notices-v2.controller.js';
import { EventsV2Controller } from './events/v2/events-v2.controller.js';
import { WebhooksV1Controller } from './webhooks/v1/webhooks-v1.controller.js';
import { WebhooksV2Controller } from './webhooks/v2/webhooks-v2.controller.js';

/** The HTTP application: feature libs plus HTTP-only concerns (guard, filter, logging, docs). */
@Module({})
export class ApiModule {
  static forSettings(settings: Settings): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forSettings(settings),
        LoggerModule.forRoot(loggerOptions(settings.logLevel)),
        DatabaseModule,
        QueueModule,
        TerminusModule,
        AuthModule,
        AuthBootstrapModule,
        ApiKeysModule,
        OrganizationsModule,
        SessionsModule,
        EventsModule,
        WebhooksModule,
        IdempotencyModule,
      ],
      controllers: [
        InteractionController,
        WellKnownController,
        ApiKeysController,
        OAuthClientsController,
        SessionsV1Controller,
        BatchesV1Controller,
        // Before SessionsV2Controller: GET /v2/sessions/templates is not a session id.
        SessionTemplatesV2Controller,
        SessionsV2Controller,
        MobileSessionsV2Controller,
        PublicSessionsV2Controller,
        OrganizationsV2Controller,
        UserProfileController,
        WebhooksV1Controller,
        WebhooksV2Controller,
        EventsV2Controller,
        SystemNoticesV2Controller,
        HealthController,
        MetricsController,
        DocsController,
      ],
      providers: [
        AuthorizationServer,
        AttemptLimiter,
        EndpointRateLimiter,
        JwtIntrospection,
        RequestLimiter,
        ReadinessChecks,
        SessionUpdatesGateway,
        ConnectionQuota,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
      ],
    };
  }
}
