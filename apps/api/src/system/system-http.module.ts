import { Module } from '@nestjs/common';
import { OrganizationsModule } from '#organizations';
import { SystemNoticesV2Controller } from './v2/system-notices-v2.controller.js';

@Module({
  imports: [OrganizationsModule],
  controllers: [SystemNoticesV2Controller],
})
export class SystemHttpModule {}
