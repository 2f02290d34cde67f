import { Module } from '@nestjs/common';
import { AnalysesModule } from '#analyses';
import { AuthModule } from '#auth';
import { SessionsModule } from '#sessions';
import { HttpConventionsModule } from '../http/http-conventions.module.js';
import { ConnectionQuota } from './connection-quota.js';
import { SessionUpdatesGateway } from './session-updates.gateway.js';

/**
 * Live session and analysis updates over WebSocket (app.ts attaches the gateway to the
 * HTTP server). Connections authenticate as requests do and count against the
 * same request limits (HttpConventionsModule's RequestLimiter).
 */
@Module({
  imports: [AuthModule, SessionsModule, AnalysesModule, HttpConventionsModule],
  providers: [SessionUpdatesGateway, ConnectionQuota],
  exports: [SessionUpdatesGateway],
})
export class LiveUpdatesModule {}
