import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { ApiKeyService } from './api-key.service.js';

@Module({
  imports: [DatabaseModule],
  providers: [ApiKeyService],
  exports: [ApiKeyService],
})
export class ApiKeysModule {}
