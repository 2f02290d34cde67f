import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalystDeadlinesModule, WorkModule } from '#work';
import { DowsingKind } from './dowsing-kind.js';
import { AnalystDowsing } from './analyst-dowsing.js';
import { DowsingListsService } from './dowsing-lists.service.js';
import { DowsingQueriesRepository } from './dowsing-queries.repository.js';
import { DowsingReadModelRepository } from './dowsing-read-model.repository.js';
import { DowsingReadingTilesRepository } from './dowsing-reading-tiles.repository.js';
import { DowsingReadingsRepository } from './dowsing-readings.repository.js';
import { DowsingService } from './dowsing.service.js';
import { DOWSING_ENTITIES } from './entities.js';
import { HeatmapService } from './heatmap.service.js';
import { TemporalAnalysisService } from './temporal-analysis.service.js';

const DOWSING = [
  DowsingQueriesRepository,
  DowsingReadModelRepository,
  DowsingReadingsRepository,
  DowsingReadingTilesRepository,
  DowsingService,
  DowsingListsService,
  HeatmapService,
  TemporalAnalysisService,
  AnalystDowsing,
];

/** Dowsing queries for API callers (both apps); the simulated engine answers inline, people through their submissions. */
@Module({
  imports: [TypeOrmModule.forFeature(DOWSING_ENTITIES), WorkModule],
  providers: [DowsingKind, ...DOWSING],
  exports: DOWSING,
})
export class DowsingModule {}

/** The work behind dowsing queries done by people: the worker only (their deadlines). */
@Module({
  imports: [DowsingModule, AnalystDeadlinesModule],
})
export class DowsingWorkModule {}
