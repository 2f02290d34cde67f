import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Local accounts, the authorization server's stored models, and shared cookie-signing secrets. */
export class AuthorizationServer1763949600000 implements MigrationInterface {
  name = 'AuthorizationServer1763949600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "users" ("id" uuid NOT NULL, "organization_id" uuid NOT NULL, "email" text NOT NULL, "name" text NOT NULL, "password_hash" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "disabled_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "users_organization_id_idx" ON "users" ("organization_id")`,
    );
    // Emails are compared without regard to case; the index makes that unique.
    await queryRunner.query(`CREATE UNIQUE INDEX "users_email_key" ON "users" (lower("email"))`);
    await queryRunner.query(
      `CREATE TABLE "oidc_payloads" ("kind" text NOT NULL, "id" text NOT NULL, "payload" jsonb NOT NULL, "grant_id" text, "uid" text, "user_code" text, "expires_at" TIMESTAMP WITH TIME ZONE, "consumed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_b7ab2bce3e613c3241c6e9276f2" PRIMARY KEY ("kind", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "oidc_payloads_grant_id_idx" ON "oidc_payloads" ("grant_id")`,
    );
    await queryRunner.query(`CREATE INDEX "oidc_payloads_uid_idx" ON "oidc_payloads" ("uid")`);
    await queryRunner.query(
      `CREATE INDEX "oidc_payloads_expires_at_idx" ON "oidc_payloads" ("expires_at")`,
    );
    await queryRunner.query(
      `CREATE TABLE "server_secrets" ("name" text NOT NULL, "value" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_776280895f188bb4dd7028779cd" PRIMARY KEY ("name"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "server_secrets"`);
    await queryRunner.query(`DROP TABLE "oidc_payloads"`);
    await queryRunner.query(`DROP TABLE "users"`);
  }
}
