import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createWorkCaseTriggers, dropWorkCaseTriggers } from './1764086400000-history-cases.js';

/**
 * Finished work's history cases are written by libs/history
 * (`WorkCasesRepository`, mapping in `libs/history/src/cases/work-case.ts`),
 * called by the work tables' repositories in the transaction that finishes
 * or deletes the work, instead of by PL/pgSQL triggers on `sessions`,
 * `analyses` and `dowsing_queries`: the domain mapping belongs to the lib
 * that owns the cases, where it is read, typed and unit-tested. The rollups'
 * statement triggers on `history_cases` stay (docs/history.md says why), as
 * does the rounding of degrees before a case is stored.
 */
export class HistoryCasesWrittenByHistory1764126000000 implements MigrationInterface {
  name = 'HistoryCasesWrittenByHistory1764126000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await dropWorkCaseTriggers(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await createWorkCaseTriggers(queryRunner);
  }
}
