import { Injectable } from '@nestjs/common';
import { WorkLifecycle, WorkService } from '#work';
import { AnalysisKind } from './analysis-kind.js';
import type { NewAnalysis } from './analysis-request.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';

/**
 * Target analyses as API callers see them (WorkService; AnalysisKind says
 * what is theirs): each queued with its estimated completion and its
 * `analysis.created` event, done by the engine its request asks for; the
 * work itself is the worker's (AnalysisRunner).
 */
@Injectable()
export class AnalysesService extends WorkService<AnalysisEntity, NewAnalysis> {
  constructor(lifecycle: WorkLifecycle, kind: AnalysisKind) {
    super(lifecycle, kind);
  }
}
