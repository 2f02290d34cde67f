import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalystsModule } from '#analysts';
import { DatabaseModule } from '#database';
import { EnginesModule } from '#engines';
import { EventsModule } from '#events';
import { HistoryModule } from '#history';
import { OrganizationsModule } from '#organizations';
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

/** Target analyses for API callers (both apps). */
@Module({
  imports: [
    TypeOrmModule.forFeature(ANALYSIS_ENTITIES),
    DatabaseModule,
    EventsModule,
    OrganizationsModule,
    EnginesModule,
    SessionsModule,
    HistoryModule,
    AnalystsModule,
    WorkModule,
  ],
  providers: [
    AnalysesRepository,
    AnalysisReadModelRepository,
    AnalysisKind,
    AnalysesService,
    AnalysisListsService,
    AnalysisEstimates,
    PatternRecognitionService,
    AnalystAnalyses,
  ],
  exports: [
    AnalysesRepository,
    AnalysisReadModelRepository,
    AnalysesService,
    AnalysisListsService,
    PatternRecognitionService,
    AnalystAnalyses,
  ],
})
export class AnalysesModule {}

/** The work behind analyses: the worker only. */
@Module({
  imports: [
    AnalysesModule,
    DatabaseModule,
    EventsModule,
    OrganizationsModule,
    EnginesModule,
    SessionsModule,
    ReferenceMaterialModule,
    HistoryModule,
    AnalystDeadlinesModule,
  ],
  providers: [AnalysisRunner, AnalysisScheduler, AnalysisSweeper, EarlierWorkFinder],
  exports: [AnalysisRunner, AnalysisSweeper],
})
export class AnalysesWorkModule {}
