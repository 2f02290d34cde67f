import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '#database';
import { ScimTokenEntity } from './scim-token.entity.js';
import { ScimTokensRepository } from './scim-tokens.repository.js';
import { ScimTokensService } from './scim-tokens.service.js';

/** SCIM bearer tokens: issued, listed and revoked by the organisation; checked on each SCIM call. */
@Module({
  imports: [TypeOrmModule.forFeature([ScimTokenEntity]), DatabaseModule],
  providers: [ScimTokensRepository, ScimTokensService],
  exports: [ScimTokensRepository, ScimTokensService],
})
export class ScimTokensModule {}
