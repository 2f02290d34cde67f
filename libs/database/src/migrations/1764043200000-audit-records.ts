import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Audit records of actions on resources that are gone afterwards (deleted sessions). */
export class AuditRecords1764043200000 implements MigrationInterface {
  name = 'AuditRecords1764043200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_records" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" uuid NOT NULL, "action" text NOT NULL, "resource_id" text NOT NULL, "actor" text NOT NULL, "request_id" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f903ebdf175f062be69747b0f18" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_records_tenant_created_idx" ON "audit_records" ("organization_id", "mode", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "audit_records"`);
  }
}
