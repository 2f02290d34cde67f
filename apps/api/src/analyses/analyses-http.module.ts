import { Module } from '@nestjs/common';
import { AnalysesModule } from '#analyses';
import { AnalysesV1Controller } from './v1/analyses-v1.controller.js';
import { AnalysesV2Controller } from './v2/analyses-v2.controller.js';

@Module({
  imports: [AnalysesModule],
  controllers: [AnalysesV1Controller, AnalysesV2Controller],
})
export class AnalysesHttpModule {}
