import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalystsModule } from '#analysts';
import { DatabaseModule } from '#database';
import { EnginesModule } from '#engines';
import { EventsModule } from '#events';
import { HistoryModule } from '#history';
import { OrganizationsModule } from '#organizations';
import { AnalystLifecycle } from './analysts/analyst-lifecycle.js';
import { BatchRecords } from './batches/batch-records.js';
import { BatchesRepository } from './batches/batches.repository.js';
import { WORK_ENTITIES } from './entities.js';
import { WorkLifecycle } from './lifecycle/work-lifecycle.js';
import { PluggedWork } from './running/plugged-work.js';

/** What the lifecycle stands on, and what a kind's own code needs too. */
const FOUNDATIONS = [
  DatabaseModule,
  AnalystsModule,
  HistoryModule,
  EventsModule,
  EnginesModule,
  OrganizationsModule,
];

const LIFECYCLE = [BatchesRepository, BatchRecords, AnalystLifecycle, WorkLifecycle, PluggedWork];

/**
 * The lifecycle every kind of work (sessions, analyses, dowsing queries)
 * shares, below the kinds' own libs, which plug into it (docs/architecture.md,
 * "The work lifecycle"): creating, cancelling, deleting, limits and batches
 * (WorkLifecycle), work done by people (AnalystLifecycle), and each kind's
 * table (WorkTable). It re-exports the modules it stands on (FOUNDATIONS).
 */
@Module({
  imports: [TypeOrmModule.forFeature(WORK_ENTITIES), ...FOUNDATIONS],
  providers: LIFECYCLE,
  // A kind's lib imports WorkModule and its table's entities, nothing else of the lifecycle's.
  exports: [...LIFECYCLE, ...FOUNDATIONS],
})
export class WorkModule {}
