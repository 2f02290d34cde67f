import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionsModule } from '#sessions';
import { AnalystDeadlinesModule, WorkModule } from '#work';
import { AnalysisKind } from './analysis-kind.js';
import { AnalysesRepository } from './analyses.repository.js';
import { AnalysisReadModelRepository } from './analysis-read-model.repository.js';
import { AnalysesService } from './analyses.service.js';
import { AnalystAnalyses } from './analyst-analyses.js';
import { AnalysisEstimates } from './analysis-estimates.js';
import { AnalysisListsService } from './analysis-lists.service.js';
import { AnalysisRunner } from './analysis-runner.js';
import { AnalysisScheduler } from './analysis-scheduler.js';
import { AnalysisSweeper } from './analysis-sweeper.js';
import { EarlierWorkFinder } from './earlier-work.js';
import { ANALYSIS_ENTITIES } from './entities.js';
import { ReferenceMaterialModule } from './material/reference-material.module.js';
import { PatternRecognitionService } from './pattern-recognition.service.js';

const ANALYSES = [
  AnalysesRepository,
  AnalysisReadModelRepository,
  AnalysesService,
  AnalysisListsService,
  PatternRecognitionService,
  AnalystAnalyses,
];

/** Target analyses for API callers (both apps). */
@Module({
  // Sessions: analyses cross-reference the organisation's completed sessions on the same target.
  imports: [TypeOrmModule.forFeature(ANALYSIS_ENTITIES), WorkModule, SessionsModule],
  providers: [AnalysisKind, AnalysisEstimates, ...ANALYSES],
  exports: ANALYSES,
})
export class AnalysesModule {}

/** The work behind analyses: the worker only. */
@Module({
  imports: [
    AnalysesModule,
    WorkModule,
    SessionsModule,
    ReferenceMaterialModule,
    AnalystDeadlinesModule,
  ],
  providers: [AnalysisRunner, AnalysisScheduler, AnalysisSweeper, EarlierWorkFinder],
  exports: [AnalysisRunner, AnalysisSweeper],
})
export class AnalysesWorkModule {}
