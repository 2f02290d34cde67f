import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes that keep GET /v2/sessions fast on millions of sessions with any
 * filter combination: one per leading filter (none, status, analyst, score;
 * created_at, id give the order), each INCLUDing the other filtered columns
 * so the rest of the filters are checked inside the index (index-only scans).
 * And a small one for the sweep of sessions whose work was lost.
 */
export class SessionListIndexes1764057600000 implements MigrationInterface {
  name = 'SessionListIndexes1764057600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "sessions_tenant_created_idx"`);
    await queryRunner.query(`DROP INDEX "sessions_tenant_status_created_idx"`);
    await queryRunner.query(
      `CREATE INDEX "sessions_tenant_created_idx" ON "sessions" ("organization_id", "mode", "created_at", "id") INCLUDE ("status", "type", "confidence_score", "analyst_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "sessions_tenant_status_created_idx" ON "sessions" ("organization_id", "mode", "status", "created_at", "id") INCLUDE ("type", "confidence_score", "analyst_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "sessions_tenant_analyst_created_idx" ON "sessions" ("organization_id", "mode", "analyst_id", "created_at", "id") INCLUDE ("status", "type", "confidence_score") WHERE analyst_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "sessions_tenant_score_idx" ON "sessions" ("organization_id", "mode", "confidence_score") INCLUDE ("created_at", "id", "status", "type", "analyst_id") WHERE confidence_score IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "sessions_running_updated_idx" ON "sessions" ("updated_at") WHERE status IN ('initiated', 'in_progress')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "sessions_running_updated_idx"`);
    await queryRunner.query(`DROP INDEX "sessions_tenant_score_idx"`);
    await queryRunner.query(`DROP INDEX "sessions_tenant_analyst_created_idx"`);
    await queryRunner.query(`DROP INDEX "sessions_tenant_status_created_idx"`);
    await queryRunner.query(`DROP INDEX "sessions_tenant_created_idx"`);
    await queryRunner.query(
      `CREATE INDEX "sessions_tenant_status_created_idx" ON "sessions" ("organization_id", "mode", "status", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "sessions_tenant_created_idx" ON "sessions" ("organization_id", "mode", "created_at", "id")`,
    );
  }
}
