import { Module } from '@nestjs/common';
import { ApiKeysModule } from '#api-keys';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { OperatorNotices } from './operator-notices.js';
import { OrganizationLimitsCache } from './organization-limits.cache.js';
import { OrganizationsService } from './organizations.service.js';

@Module({
  imports: [DatabaseModule, EventsModule, ApiKeysModule],
  providers: [OrganizationsService, OrganizationLimitsCache, OperatorNotices],
  exports: [OrganizationsService, OrganizationLimitsCache, OperatorNotices],
})
export class OrganizationsModule {}
