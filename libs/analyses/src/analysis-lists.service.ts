import { Injectable } from '@nestjs/common';
import { WorkListsService } from '#work';
import { AnalysesRepository, type AnalysisFilter } from './analyses.repository.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';

/** The lists of a tenant's analyses (WorkListsService), read from a replica when one is usable. */
@Injectable()
export class AnalysisListsService extends WorkListsService<AnalysisEntity, AnalysisFilter> {
  constructor(analyses: AnalysesRepository) {
    super(analyses);
  }
}
