import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MembersModule } from '#analysts';
import { AuthModule } from '#auth';
import { DatabaseModule } from '#database';
import { SsoModule } from '#sso';
import { ScimGroupsRepository } from './directory/scim-groups.repository.js';
import { ScimGroups } from './directory/scim-groups.js';
import { ScimService } from './directory/scim-service.js';
import { ScimUsers } from './directory/scim-users.js';
import { SCIM_ENTITIES } from './entities.js';

const PROVIDERS = [ScimGroupsRepository, ScimUsers, ScimGroups, ScimService];

/** SCIM 2.0 provisioning of people and groups (the API only). */
@Module({
  imports: [
    TypeOrmModule.forFeature(SCIM_ENTITIES),
    DatabaseModule,
    AuthModule,
    SsoModule,
    MembersModule,
  ],
  providers: PROVIDERS,
  exports: PROVIDERS,
})
export class ScimModule {}
