export * from './cases/work-case.js';
export { WorkCasesRepository } from './cases/work-cases.repository.js';
export * from './history-case.js';
export * from './history-events.js';
export * from './history.module.js';
export * from './history.service.js';
export * from './import/index.js';
export * from './patterns/index.js';
export * from './verified-record.js';
export * from './rollups/rollup-range.js';
export * from './search/case-search-filters.js';
export * from './search/case-search.service.js';
export * from './similar/case-similarity.js';
export * from './similar/similar-cases.service.js';
export { HistoryCasesRepository } from './history-cases.repository.js';
export {
  HistoryReadModelRepository,
  type FinishedDay,
  type ReportedCase,
  type ReportRange,
  type ReportTally,
  type SourceOutcome,
} from './history-read-model.repository.js';
export {
  CaseSearchRepository,
  type MatchWindow,
  type RankedCase,
} from './search/case-search.repository.js';
export {
  SimilarCasesRepository,
  type SimilarCandidate,
} from './similar/similar-cases.repository.js';
export { HistoryPatternsRepository } from './patterns/history-patterns.repository.js';
export { ImportedCasesRepository } from './import/imported-cases.repository.js';
export { SeededCasesRepository, type HistorySeedChunk } from './seeding/seeded-cases.repository.js';
export { HistoryCaseRollupsRepository } from './history-case-rollups.repository.js';
export { HistoryAnalystRollupsRepository } from './history-analyst-rollups.repository.js';
export * from './entities.js';
export * from './entities/history-case.entity.js';
export * from './entities/history-case-rollup.entity.js';
export * from './entities/history-analyst-rollup.entity.js';
