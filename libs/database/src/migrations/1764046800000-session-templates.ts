import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Organisations' own session templates (the built-in ones live in code). */
export class SessionTemplates1764046800000 implements MigrationInterface {
  name = 'SessionTemplates1764046800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "session_templates" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" uuid NOT NULL, "name" text NOT NULL, "description" text NOT NULL DEFAULT '', "type" text NOT NULL, "modality" text, "duration_minutes" smallint NOT NULL, "privacy_level" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2ff19af696fb304d9a395482f34" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "session_templates_name_key" ON "session_templates" ("organization_id", "mode", "name")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "session_templates"`);
  }
}
