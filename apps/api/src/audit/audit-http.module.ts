import { Module } from '@nestjs/common';
import { EventsModule } from '#events';
import { AuditEventsV2Controller } from './v2/audit-events-v2.controller.js';

@Module({
  imports: [EventsModule],
  controllers: [AuditEventsV2Controller],
})
export class AuditHttpModule {}
