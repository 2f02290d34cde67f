import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Idempotency-Key records: the first request of each key and its response, for 24 hours. */
export class IdempotencyKeys1764064800000 implements MigrationInterface {
  name = 'IdempotencyKeys1764064800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "key" text NOT NULL, "route" text NOT NULL, "request_hash" text NOT NULL, "response_status" smallint, "response_body" jsonb, "request_id" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_3cfdd954f5ad161160dd2ffccd0" PRIMARY KEY ("organization_id", "mode", "key"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" ("expires_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
