import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Target analyses. Besides the lists' indexes (the tenant first, then the
 * filter, created_at and id for the order, INCLUDing the other filtered
 * columns), partial indexes serve the worker: the queue ahead of a new
 * analysis (estimates), recent completions (the measured rate), the sweep of
 * analyses whose work was lost, and earlier finished work on the same place
 * or description (cross-referencing).
 */
export class Analyses1764075600000 implements MigrationInterface {
  name = 'Analyses1764075600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "analyses" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" uuid NOT NULL, "target_type" text NOT NULL, "analysis_type" text NOT NULL, "priority" text NOT NULL, "description" text, "description_key" text, "reference_material" jsonb NOT NULL, "latitude" double precision, "longitude" double precision, "request_fingerprint" text NOT NULL, "material" jsonb, "earlier_work" jsonb, "status" text NOT NULL, "steps_done" smallint NOT NULL DEFAULT '0', "steps" text array, "engine" text NOT NULL, "engine_version" text, "engine_seed" text, "results" jsonb, "score_details" jsonb, "confidence_score" double precision, "evidence" text, "failure_reason" text, "failure_message" text, "event_sequence" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "estimated_completion" TIMESTAMP WITH TIME ZONE, "batch_id" uuid, CONSTRAINT "PK_analyses" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "analyses_batch_idx" ON "analyses" ("batch_id") WHERE batch_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "analyses_tenant_created_idx" ON "analyses" ("organization_id", "mode", "created_at", "id") INCLUDE ("status", "target_type", "priority")`,
    );
    await queryRunner.query(
      `CREATE INDEX "analyses_tenant_status_created_idx" ON "analyses" ("organization_id", "mode", "status", "created_at", "id") INCLUDE ("target_type", "priority")`,
    );
    await queryRunner.query(
      `CREATE INDEX "analyses_tenant_location_idx" ON "analyses" ("organization_id", "mode", "latitude") INCLUDE ("longitude") WHERE status = 'completed' AND latitude IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "analyses_tenant_description_idx" ON "analyses" ("organization_id", "mode", "description_key") WHERE status = 'completed' AND description_key IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "analyses_queued_idx" ON "analyses" ("priority", "created_at") WHERE status = 'queued'`,
    );
    await queryRunner.query(
      `CREATE INDEX "analyses_running_updated_idx" ON "analyses" ("updated_at") WHERE status IN ('queued', 'processing')`,
    );
    await queryRunner.query(
      `CREATE INDEX "analyses_completed_idx" ON "analyses" ("completed_at") WHERE status = 'completed'`,
    );
    // Completed sessions by their target, as analyses compare descriptions (whitespace collapsed, lower case).
    await queryRunner.query(
      `CREATE INDEX "sessions_tenant_target_key_idx" ON "sessions" ("organization_id", "mode", (lower(btrim(regexp_replace(target, '\\s+', ' ', 'g'))))) WHERE status = 'completed'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "sessions_tenant_target_key_idx"`);
    await queryRunner.query(`DROP TABLE "analyses"`);
  }
}
