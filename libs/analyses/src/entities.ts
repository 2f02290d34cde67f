import { AnalysisEntity } from './entities/analysis.entity.js';

/** The tables this lib owns. */
export const ANALYSIS_ENTITIES = [AnalysisEntity];
