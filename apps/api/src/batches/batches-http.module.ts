import { Module } from '@nestjs/common';
import { SessionsModule } from '#sessions';
import { BatchesV1Controller } from './v1/batches-v1.controller.js';

@Module({
  imports: [SessionsModule],
  controllers: [BatchesV1Controller],
})
export class BatchesHttpModule {}
