import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { OrganizationLimitsCache } from './organization-limits.cache.js';
import { OrganizationsService } from './organizations.service.js';

@Module({
  imports: [DatabaseModule, EventsModule],
  providers: [OrganizationsService, OrganizationLimitsCache],
  exports: [OrganizationsService, OrganizationLimitsCache],
})
export class OrganizationsModule {}
