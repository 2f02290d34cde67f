import { Module } from '@nestjs/common';
import { AnalysesModule } from '#analyses';
import { AuthModule } from '#auth';
import { SessionsModule } from '#sessions';
import { HttpConventionsModule } from '../http/http-conventions.module.js';
import { ConnectionQuota } from './connection-quota.js';
import { EventListenGateway } from './event-listen.gateway.js';
import { LiveSockets } from './live-sockets.js';
import { RelayedEvents } from './relayed-events.js';
import { SessionUpdatesGateway } from './session-updates.gateway.js';

/**
 * The API's WebSockets (app.ts attaches LiveSockets to the HTTP server): live
 * session and analysis updates (/v1/sessions/ws) and the event stream of
 * `sas webhooks listen` (/v2/events/listen). Connections authenticate as
 * requests do and count against the same request limits
 * (HttpConventionsModule's RequestLimiter).
 */
@Module({
  imports: [AuthModule, SessionsModule, AnalysesModule, HttpConventionsModule],
  providers: [
    LiveSockets,
    RelayedEvents,
    ConnectionQuota,
    SessionUpdatesGateway,
    EventListenGateway,
  ],
  exports: [LiveSockets, SessionUpdatesGateway, EventListenGateway],
})
export class LiveUpdatesModule {}
