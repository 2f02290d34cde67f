import { Module } from '@nestjs/common';
import { EventsModule } from '#events';
import { OrganizationsModule } from '#organizations';
import { SystemNoticesV2Controller } from './v2/system-notices-v2.controller.js';

@Module({
  imports: [EventsModule, OrganizationsModule],
  controllers: [SystemNoticesV2Controller],
})
export class SystemHttpModule {}
