import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '#database';
import { EnginesModule } from '#engines';
import { EventsModule } from '#events';
import { HistoryModule } from '#history';
import { OrganizationsModule } from '#organizations';
import { SessionsModule } from '#sessions';
import { DowsingListsService } from './dowsing-lists.service.js';
import { DowsingService } from './dowsing.service.js';
import { DOWSING_ENTITIES } from './entities.js';
import { HeatmapService } from './heatmap.service.js';
import { TemporalAnalysisService } from './temporal-analysis.service.js';

/** Dowsing queries for API callers (both apps); the simulated engine answers inline, so the worker has nothing of its own yet. */
@Module({
  imports: [
    TypeOrmModule.forFeature(DOWSING_ENTITIES),
    DatabaseModule,
    EventsModule,
    OrganizationsModule,
    EnginesModule,
    SessionsModule,
    HistoryModule,
  ],
  providers: [DowsingService, DowsingListsService, HeatmapService, TemporalAnalysisService],
  exports: [DowsingService, DowsingListsService, HeatmapService, TemporalAnalysisService],
})
export class DowsingModule {}
