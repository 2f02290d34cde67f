import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AuthBootstrapModule } from '#auth';
import { ConfigModule, type Settings } from '#config';
import { DatabaseModule } from '#database';
import { QueueModule } from '#queue';
import { AnalysesHttpModule } from './analyses/analyses-http.module.js';
import { AnalyticsHttpModule } from './analytics/analytics-http.module.js';
import { AnalystsHttpModule } from './analysts/analysts-http.module.js';
import { AssignmentsHttpModule } from './assignments/assignments-http.module.js';
import { InvitationsHttpModule } from './invitations/invitations-http.module.js';
import { JudgingHttpModule } from './judging/judging-http.module.js';
import { TargetsHttpModule } from './targets/targets-http.module.js';
import { ApiKeysHttpModule } from './api-keys/api-keys-http.module.js';
import { BatchesHttpModule } from './batches/batches-http.module.js';
import { DowsingHttpModule } from './dowsing/dowsing-http.module.js';
import { HistoryHttpModule } from './history/history-http.module.js';
import { HistoryImportHttpModule } from './history/history-import-http.module.js';
import { EventsHttpModule } from './events/events-http.module.js';
import { AuditHttpModule } from './audit/audit-http.module.js';
import { HealthModule } from './health/health.module.js';
import { HttpConventionsModule } from './http/http-conventions.module.js';
import { loggerOptions } from './http/logging.js';
import { LiveUpdatesModule } from './live/live-updates.module.js';
import { OAuthClientsHttpModule } from './oauth-clients/oauth-clients-http.module.js';
import { OAuthServerModule } from './oauth/oauth-server.module.js';
import { OrganizationsHttpModule } from './organizations/organizations-http.module.js';
import { ReportsHttpModule } from './reports/reports-http.module.js';
import { SsoHttpModule } from './sso/sso-http.module.js';
import { ScimHttpModule } from './scim/scim-http.module.js';
import { SessionsHttpModule } from './sessions/sessions-http.module.js';
import { SystemHttpModule } from './system/system-http.module.js';
import { UsersHttpModule } from './users/users-http.module.js';
import { WebhooksHttpModule } from './webhooks/webhooks-http.module.js';

/**
 * The HTTP application: settings, logging, the database and the queues; the
 * identities every start makes sure of (AuthBootstrapModule); the conventions
 * every route shares (HttpConventionsModule); then one module per feature.
 * Feature modules are listed in the order the OpenAPI document shows them
 * (and Express registers their routes).
 */
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
        AuthBootstrapModule,
        HttpConventionsModule,
        OAuthServerModule,
        ApiKeysHttpModule,
        OAuthClientsHttpModule,
        SessionsHttpModule,
        AnalysesHttpModule,
        ReportsHttpModule,
        SsoHttpModule,
        ScimHttpModule,
        AnalystsHttpModule,
        AssignmentsHttpModule,
        JudgingHttpModule,
        TargetsHttpModule,
        InvitationsHttpModule,
        DowsingHttpModule,
        AnalyticsHttpModule,
        HistoryHttpModule,
        HistoryImportHttpModule,
        BatchesHttpModule,
        OrganizationsHttpModule,
        UsersHttpModule,
        WebhooksHttpModule,
        EventsHttpModule,
        AuditHttpModule,
        SystemHttpModule,
        HealthModule,
        LiveUpdatesModule,
      ],
    };
  }
}
