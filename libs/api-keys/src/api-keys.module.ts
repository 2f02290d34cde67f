import { TypeOrmModule } from '@nestjs/typeorm';
import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { ApiKeyCache } from './api-key-cache.js';
import { ApiKeyService } from './api-key.service.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { API_KEY_ENTITIES } from './entities.js';

@Module({
  imports: [TypeOrmModule.forFeature(API_KEY_ENTITIES), DatabaseModule],
  providers: [ApiKeysRepository, ApiKeyService, ApiKeyCache],
  exports: [ApiKeysRepository, ApiKeyService],
})
export class ApiKeysModule {}
