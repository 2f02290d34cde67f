import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Organisations, OAuth clients, signing keys, API keys, sessions and the event log / outbox. */
export class Initial1763856000000 implements MigrationInterface {
  name = 'Initial1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" uuid NOT NULL, "organization_id" uuid NOT NULL, "mode" text NOT NULL, "name" text NOT NULL, "secret_hash" bytea NOT NULL, "display_prefix" text NOT NULL, "scopes" text array NOT NULL, "created_by" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"  ("secret_hash")`,
    );
    await queryRunner.query(
      `CREATE INDEX "api_keys_org_mode_created_idx" ON "api_keys"  ("organization_id", "mode", "created_at")`,
    );
    await queryRunner.query(
      `CREATE TABLE "events" ("id" uuid NOT NULL, "organization_id" uuid NOT NULL, "mode" text NOT NULL, "type" text NOT NULL, "data" jsonb NOT NULL, "request_id" text, "pending_webhooks" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(), "relayed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_40731c7151fe4be3116e45ddf73" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "events_unrelayed_idx" ON "events"  ("created_at", "id") WHERE relayed_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "events_tenant_created_idx" ON "events"  ("organization_id", "mode", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "oauth_clients" ("id" uuid NOT NULL, "client_id" text NOT NULL, "organization_id" uuid NOT NULL, "mode" text NOT NULL DEFAULT 'live', "client_name" text NOT NULL, "secret_hash" text, "token_endpoint_auth_method" text NOT NULL DEFAULT 'client_secret_post', "grant_types" text array NOT NULL DEFAULT '{client_credentials}', "redirect_uris" text array NOT NULL DEFAULT '{}', "scopes" text array NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_c4759172d3431bae6f04e678e0d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oauth_clients_client_id_key" ON "oauth_clients"  ("client_id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "organizations" ("id" uuid NOT NULL, "name" text NOT NULL, "plan" text NOT NULL DEFAULT 'free', "tier" text NOT NULL DEFAULT 'basic', "is_bootstrap" boolean NOT NULL DEFAULT false, "engine_seed" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6b031fcd0863e3f6b44230163f9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "sessions" ("id" uuid NOT NULL, "organization_id" uuid NOT NULL, "mode" text NOT NULL, "type" text NOT NULL, "target" text NOT NULL, "modality" text, "duration_minutes" smallint NOT NULL, "privacy_level" text NOT NULL, "status" text NOT NULL, "progress" smallint NOT NULL DEFAULT '0', "engine" text NOT NULL, "engine_version" text, "engine_seed" text, "results" jsonb, "confidence_score" double precision, "analyst_id" text, "evidence" text, "failure_reason" text, "event_sequence" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "estimated_completion" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_3238ef96f18b355b671619111bc" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "sessions_tenant_status_created_idx" ON "sessions"  ("organization_id", "mode", "status", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "sessions_tenant_created_idx" ON "sessions"  ("organization_id", "mode", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "signing_keys" ("kid" text NOT NULL, "algorithm" text NOT NULL, "public_jwk" jsonb NOT NULL, "private_jwk" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "activates_at" TIMESTAMP WITH TIME ZONE NOT NULL, "retires_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_13362ac3e792c69417e1a53d355" PRIMARY KEY ("kid"))`,
    );
    // Wake the outbox relay as soon as an event commits (it also polls, so a lost notification only delays).
    await queryRunner.query(
      `CREATE FUNCTION notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('outbox', ''); RETURN NULL; END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER events_notify_outbox AFTER INSERT ON "events" FOR EACH STATEMENT EXECUTE FUNCTION notify_outbox()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER events_notify_outbox ON "events"`);
    await queryRunner.query(`DROP FUNCTION notify_outbox()`);
    await queryRunner.query(`DROP TABLE "signing_keys"`);
    await queryRunner.query(`DROP TABLE "sessions"`);
    await queryRunner.query(`DROP TABLE "organizations"`);
    await queryRunner.query(`DROP TABLE "oauth_clients"`);
    await queryRunner.query(`DROP TABLE "events"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
  }
}
