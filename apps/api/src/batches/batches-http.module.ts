import { Module } from '@nestjs/common';
import { AnalysesModule } from '#analyses';
import { DowsingModule } from '#dowsing';
import { SessionsModule } from '#sessions';
import { WorkModule } from '#work';
import { BatchesV1Controller } from './v1/batches-v1.controller.js';

@Module({
  imports: [SessionsModule, AnalysesModule, DowsingModule, WorkModule],
  controllers: [BatchesV1Controller],
})
export class BatchesHttpModule {}
