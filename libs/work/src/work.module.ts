import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '#database';
import { BatchRecords } from './batches/batch-records.js';
import { BatchesRepository } from './batches/batches.repository.js';
import { WORK_ENTITIES } from './entities.js';

/**
 * What every kind of work (sessions, analyses, dowsing queries) shares,
 * below the kinds' own libs: batches, today; the lifecycle of issue 40 next.
 */
@Module({
  imports: [TypeOrmModule.forFeature(WORK_ENTITIES), DatabaseModule],
  providers: [BatchesRepository, BatchRecords],
  exports: [BatchesRepository, BatchRecords],
})
export class WorkModule {}
