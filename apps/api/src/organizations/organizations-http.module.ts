import { Module } from '@nestjs/common';
import { OrganizationsModule } from '#organizations';
import { OrganizationsV2Controller } from './v2/organizations-v2.controller.js';

@Module({
  imports: [OrganizationsModule],
  controllers: [OrganizationsV2Controller],
})
export class OrganizationsHttpModule {}
