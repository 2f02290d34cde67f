import { Module } from '@nestjs/common';
import { DowsingModule } from '#dowsing';
import { DowsingV1Controller } from './v1/dowsing-v1.controller.js';
import { DowsingV2Controller } from './v2/dowsing-v2.controller.js';
import { DowsingHeatmapV2Controller } from './v2/heatmap.controller.js';
import { DowsingTemporalAnalysisV2Controller } from './v2/temporal-analysis.controller.js';

@Module({
  imports: [DowsingModule],
  controllers: [
    DowsingV1Controller,
    DowsingV2Controller,
    DowsingHeatmapV2Controller,
    DowsingTemporalAnalysisV2Controller,
  ],
})
export class DowsingHttpModule {}
