import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Batches (of sessions now, of analyses later) and the batch each session came in. */
export class Batches1764050400000 implements MigrationInterface {
  name = 'Batches1764050400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "batches" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" uuid NOT NULL, "kind" text NOT NULL, "item_count" integer NOT NULL, "request_id" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_55e7ff646e969b61d37eea5be7a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "batches_tenant_created_idx" ON "batches" ("organization_id", "mode", "created_at")`,
    );
    await queryRunner.query(`ALTER TABLE "sessions" ADD "batch_id" uuid`);
    await queryRunner.query(
      `CREATE INDEX "sessions_batch_idx" ON "sessions" ("batch_id") WHERE batch_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "sessions_batch_idx"`);
    await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "batch_id"`);
    await queryRunner.query(`DROP TABLE "batches"`);
  }
}
