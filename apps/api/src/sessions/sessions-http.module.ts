import { Module } from '@nestjs/common';
import { SessionsModule } from '#sessions';
import { SessionsV1Controller } from './v1/sessions-v1.controller.js';
import { MobileSessionsV2Controller } from './v2/mobile-sessions-v2.controller.js';
import { PublicSessionsV2Controller } from './v2/public-sessions-v2.controller.js';
import { SessionTemplatesV2Controller } from './v2/session-templates-v2.controller.js';
import { SessionsV2Controller } from './v2/sessions-v2.controller.js';

@Module({
  imports: [SessionsModule],
  controllers: [
    SessionsV1Controller,
    // Routes match in the order they are registered: GET /v2/sessions/templates must come
    // before SessionsV2Controller's GET /v2/sessions/:session_id, which would read
    // "templates" as a session id.
    SessionTemplatesV2Controller,
    SessionsV2Controller,
    MobileSessionsV2Controller,
    PublicSessionsV2Controller,
  ],
})
export class SessionsHttpModule {}
