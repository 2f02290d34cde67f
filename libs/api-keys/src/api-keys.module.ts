import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { ApiKeyCache } from './api-key-cache.js';
import { ApiKeyService } from './api-key.service.js';

@Module({
  imports: [DatabaseModule],
  providers: [ApiKeyService, ApiKeyCache],
  exports: [ApiKeyService],
})
export class ApiKeysModule {}
