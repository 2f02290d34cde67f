import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { WorkCasesRepository } from './cases/work-cases.repository.js';
import { HISTORY_ENTITIES } from './entities.js';
import { HistoryAnalystRollupsRepository } from './history-analyst-rollups.repository.js';
import { HistoryCaseRollupsRepository } from './history-case-rollups.repository.js';
import { HistoryCasesRepository } from './history-cases.repository.js';
import { HistoryReadModelRepository } from './history-read-model.repository.js';
import { HistoryService } from './history.service.js';
import { HistoryImportService } from './import/history-import.service.js';
import { ImportedCasesRepository } from './import/imported-cases.repository.js';
import { HistoryPatternsRepository } from './patterns/history-patterns.repository.js';
import { HistoryPatternsService } from './patterns/history-patterns.service.js';
import { CaseSearchRepository } from './search/case-search.repository.js';
import { CaseSearchService } from './search/case-search.service.js';
import { SeededCasesRepository } from './seeding/seeded-cases.repository.js';
import { SimilarCasesRepository } from './similar/similar-cases.repository.js';
import { SimilarCasesService } from './similar/similar-cases.service.js';
import { VerifiedRecords } from './verified-record.js';

/**
 * History cases: reads, verified outcomes, search, similar cases and imports
 * (both apps), and the repositories of its tables, which analytics and
 * reports read through.
 */
@Module({
  imports: [TypeOrmModule.forFeature(HISTORY_ENTITIES), DatabaseModule, EventsModule],
  providers: [
    HistoryCasesRepository,
    HistoryReadModelRepository,
    CaseSearchRepository,
    SimilarCasesRepository,
    HistoryPatternsRepository,
    ImportedCasesRepository,
    SeededCasesRepository,
    HistoryCaseRollupsRepository,
    HistoryAnalystRollupsRepository,
    WorkCasesRepository,
    HistoryService,
    CaseSearchService,
    SimilarCasesService,
    VerifiedRecords,
    HistoryImportService,
    HistoryPatternsService,
  ],
  exports: [
    HistoryCasesRepository,
    HistoryReadModelRepository,
    CaseSearchRepository,
    SimilarCasesRepository,
    HistoryPatternsRepository,
    ImportedCasesRepository,
    SeededCasesRepository,
    HistoryCaseRollupsRepository,
    HistoryAnalystRollupsRepository,
    WorkCasesRepository,
    HistoryService,
    CaseSearchService,
    SimilarCasesService,
    VerifiedRecords,
    HistoryImportService,
    HistoryPatternsService,
  ],
})
export class HistoryModule {}
