import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook endpoints, their deliveries and attempts; test events addressed to one endpoint. */
export class Webhooks1764036000000 implements MigrationInterface {
  name = 'Webhooks1764036000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "events" ADD "target_webhook_id" uuid`);
    await queryRunner.query(`CREATE INDEX "events_created_idx" ON "events" ("created_at")`);
    await queryRunner.query(
      `CREATE TABLE "webhooks" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" uuid NOT NULL, "url" text NOT NULL, "events" text array NOT NULL, "active" boolean NOT NULL DEFAULT true, "status" text NOT NULL DEFAULT 'enabled', "status_reason" text, "envelope_format" text NOT NULL DEFAULT 'standard', "secret_sealed" text NOT NULL, "previous_secret_sealed" text, "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE, "event_sequence" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9e8795cfc899ab7bdaa831e8527" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhooks_org_mode_created_idx" ON "webhooks" ("organization_id", "mode", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" uuid NOT NULL, "webhook_id" uuid NOT NULL, "event_id" uuid NOT NULL, "origin" text NOT NULL, "state" text NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "max_attempts" integer NOT NULL, "next_attempt_at" TIMESTAMP WITH TIME ZONE, "lease_until" TIMESTAMP WITH TIME ZONE, "replay_id" uuid, "last_status_code" integer, "last_error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" ("event_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_webhook_created_idx" ON "webhook_deliveries" ("webhook_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("next_attempt_at") WHERE state = 'pending'`,
    );
    // Fan-out is idempotent: a relay pass that runs twice cannot deliver an event twice.
    await queryRunner.query(
      `CREATE UNIQUE INDEX "webhook_deliveries_fanout_key" ON "webhook_deliveries" ("webhook_id", "event_id") WHERE origin = 'event'`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_attempts" ("id" uuid NOT NULL, "delivery_id" uuid NOT NULL, "attempt_number" integer NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "duration_ms" integer NOT NULL, "status_code" integer, "response_body" text, "error" text, CONSTRAINT "PK_2de7e7887ad97de459adab62638" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" ("delivery_id", "attempt_number")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_attempts"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP TABLE "webhooks"`);
    await queryRunner.query(`DROP INDEX "events_created_idx"`);
    await queryRunner.query(`ALTER TABLE "events" DROP COLUMN "target_webhook_id"`);
  }
}
