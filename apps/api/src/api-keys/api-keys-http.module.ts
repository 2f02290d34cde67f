import { Module } from '@nestjs/common';
import { ApiKeysModule } from '#api-keys';
import { ApiKeysController } from './v1/api-keys-v1.controller.js';

@Module({
  imports: [ApiKeysModule],
  controllers: [ApiKeysController],
})
export class ApiKeysHttpModule {}
