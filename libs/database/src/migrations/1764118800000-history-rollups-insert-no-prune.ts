import type { MigrationInterface, QueryRunner } from 'typeorm';
import { rollupTrackFunction } from './1764097200000-history-rollup-grains.js';

/**
 * Inserted cases no longer look for emptied rollup rows to delete. An insert only adds to the
 * counts of its keys, and a row that reaches 0 is deleted when it does, so there is never one to
 * find; but the search (`DELETE … WHERE cases <= 0 AND (key) IN (…)`) was planned as a scan of
 * the whole rollup tables: 261 of the 324 ms the trigger took for a 1,000-row import batch into an
 * organisation of a million cases (2.2 million analyst rollup rows), which made importing 100,000
 * rows take 71 s instead of 14. Updates and deletes still prune.
 */
export class HistoryRollupsInsertNoPrune1764118800000 implements MigrationInterface {
  name = 'HistoryRollupsInsertNoPrune1764118800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE OR REPLACE ${rollupTrackFunction({ pruneAfterInsert: false })}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE ${rollupTrackFunction({ pruneAfterInsert: true })}`);
  }
}
