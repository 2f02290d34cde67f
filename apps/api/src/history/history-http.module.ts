import { Module } from '@nestjs/common';
import { HistoryModule } from '#history';
import { HistoryV1Controller } from './v1/history-v1.controller.js';
import { HistoryPatternsController } from './v2/history-patterns.controller.js';
import { HistoryV2Controller } from './v2/history-v2.controller.js';

@Module({
  imports: [HistoryModule],
  controllers: [HistoryV1Controller, HistoryV2Controller, HistoryPatternsController],
})
export class HistoryHttpModule {}
