import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { HistoryService } from './history.service.js';

/** History cases: reads, verified outcomes, search, similar cases and imports (both apps). */
@Module({
  imports: [DatabaseModule, EventsModule],
  providers: [HistoryService],
  exports: [HistoryService],
})
export class HistoryModule {}
