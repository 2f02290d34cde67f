import { HistoryAnalystRollupEntity } from './entities/history-analyst-rollup.entity.js';
import { HistoryCaseRollupEntity } from './entities/history-case-rollup.entity.js';
import { HistoryCaseEntity } from './entities/history-case.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const HISTORY_ENTITIES: (new () => object)[] = [
  HistoryCaseEntity,
  HistoryCaseRollupEntity,
  HistoryAnalystRollupEntity,
];
