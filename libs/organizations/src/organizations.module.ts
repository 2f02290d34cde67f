import { TypeOrmModule } from '@nestjs/typeorm';
import { Module } from '@nestjs/common';
import { ApiKeysModule } from '#api-keys';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { OperatorNotices } from './operator-notices.js';
import { OrganizationLimitsCache } from './organization-limits.cache.js';
import { OrganizationsRepository } from './organizations.repository.js';
import { OrganizationsService } from './organizations.service.js';
import { ORGANIZATION_ENTITIES } from './entities.js';

@Module({
  imports: [
    TypeOrmModule.forFeature(ORGANIZATION_ENTITIES),
    DatabaseModule,
    EventsModule,
    ApiKeysModule,
  ],
  providers: [
    OrganizationsRepository,
    OrganizationsService,
    OrganizationLimitsCache,
    OperatorNotices,
  ],
  exports: [
    OrganizationsRepository,
    OrganizationsService,
    OrganizationLimitsCache,
    OperatorNotices,
  ],
})
export class OrganizationsModule {}
