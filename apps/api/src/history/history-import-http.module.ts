import { Module } from '@nestjs/common';
import { HistoryModule } from '#history';
import { HistoryImportV2Controller } from './v2/history-import.controller.js';

/** POST /v2/history/import: its body is streamed to the route (http/streamed-bodies.ts). */
@Module({
  imports: [HistoryModule],
  controllers: [HistoryImportV2Controller],
})
export class HistoryImportHttpModule {}
