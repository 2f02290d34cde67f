import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { HistoryService } from './history.service.js';
import { HistoryImportService } from './import/history-import.service.js';
import { HistoryPatternsService } from './patterns/history-patterns.service.js';
import { CaseSearchService } from './search/case-search.service.js';
import { SimilarCasesService } from './similar/similar-cases.service.js';
import { VerifiedRecords } from './verified-record.js';

/** History cases: reads, verified outcomes, search, similar cases and imports (both apps). */
@Module({
  imports: [DatabaseModule, EventsModule],
  providers: [
    HistoryService,
    CaseSearchService,
    SimilarCasesService,
    VerifiedRecords,
    HistoryImportService,
    HistoryPatternsService,
  ],
  exports: [
    HistoryService,
    CaseSearchService,
    SimilarCasesService,
    VerifiedRecords,
    HistoryImportService,
    HistoryPatternsService,
  ],
})
export class HistoryModule {}
