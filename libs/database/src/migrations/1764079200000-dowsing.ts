import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dowsing queries (the plain query and its seven v1 variants) and their
 * located readings. The lists' indexes lead with the tenant, then the filter,
 * created_at and id for the order, INCLUDing the other filtered columns; the
 * readings' index leads with the tenant and the position and INCLUDEs what
 * heatmaps and temporal analysis aggregate, so they read the index alone.
 */
export class Dowsing1764079200000 implements MigrationInterface {
  name = 'Dowsing1764079200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "dowsing_queries" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" uuid NOT NULL, "variant" text NOT NULL, "query_type" text NOT NULL, "question" text NOT NULL, "precision_level" text NOT NULL, "context" jsonb NOT NULL, "input" jsonb NOT NULL, "status" text NOT NULL, "engine" text NOT NULL, "engine_version" text, "engine_seed" text, "result" jsonb, "confidence" double precision, "evidence" text, "failure_reason" text, "failure_message" text, "event_sequence" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "completed_at" TIMESTAMP WITH TIME ZONE, "batch_id" uuid, CONSTRAINT "PK_dowsing_queries" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "dowsing_queries_batch_idx" ON "dowsing_queries" ("batch_id") WHERE batch_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "dowsing_queries_tenant_created_idx" ON "dowsing_queries" ("organization_id", "mode", "created_at", "id") INCLUDE ("status", "query_type", "variant")`,
    );
    await queryRunner.query(
      `CREATE INDEX "dowsing_queries_tenant_status_created_idx" ON "dowsing_queries" ("organization_id", "mode", "status", "created_at", "id") INCLUDE ("query_type", "variant")`,
    );
    await queryRunner.query(
      `CREATE TABLE "dowsing_readings" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "query_id" uuid NOT NULL, "latitude" double precision NOT NULL, "longitude" double precision NOT NULL, "confidence" double precision NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_dowsing_readings" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "dowsing_readings_tenant_location_idx" ON "dowsing_readings" ("organization_id", "mode", "latitude", "longitude") INCLUDE ("confidence", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "dowsing_readings_query_idx" ON "dowsing_readings" ("query_id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "dowsing_readings"`);
    await queryRunner.query(`DROP TABLE "dowsing_queries"`);
  }
}
