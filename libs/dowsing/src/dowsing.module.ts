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

/** Dowsing queries for API callers (both apps); the simulated engine answers inline, people through their submissions. */
@Module({
  imports: [
    TypeOrmModule.forFeature(DOWSING_ENTITIES),
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
    DowsingQueriesRepository,
    DowsingReadModelRepository,
    DowsingReadingsRepository,
    DowsingReadingTilesRepository,
    DowsingKind,
    DowsingService,
    DowsingListsService,
    HeatmapService,
    TemporalAnalysisService,
    AnalystDowsing,
  ],
  exports: [
    DowsingQueriesRepository,
    DowsingReadModelRepository,
    DowsingReadingsRepository,
    DowsingReadingTilesRepository,
    DowsingService,
    DowsingListsService,
    HeatmapService,
    TemporalAnalysisService,
    AnalystDowsing,
  ],
})
export class DowsingModule {}

/** The work behind dowsing queries done by people: the worker only (their deadlines). */
@Module({
  imports: [DowsingModule, AnalystDeadlinesModule],
})
export class DowsingWorkModule {}
