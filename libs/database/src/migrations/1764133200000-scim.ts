import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SCIM 2.0 provisioning: the organisation's SCIM bearer tokens (stored as
 * SHA-256 of the token, shown once), the groups an identity provider pushes,
 * with their members, and on `users` what SCIM says of a person: the IdP's
 * `externalId`, and when SCIM took charge of them. Like people and sign-in
 * connections, all of it belongs to both modes and is written in live mode
 * only.
 */
export class Scim1764133200000 implements MigrationInterface {
  name = 'Scim1764133200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "scim_tokens" ("id" uuid NOT NULL, "organization_id" uuid NOT NULL, "name" text NOT NULL, "token_hash" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_scim_tokens" PRIMARY KEY ("id"), CONSTRAINT "UQ_scim_tokens_hash" UNIQUE ("token_hash"), CONSTRAINT "FK_scim_tokens_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(
      `CREATE INDEX "scim_tokens_organization_idx" ON "scim_tokens" ("organization_id", "created_at")`,
    );
    await queryRunner.query(
      `CREATE TABLE "scim_groups" ("id" uuid NOT NULL, "organization_id" uuid NOT NULL, "display_name" text NOT NULL, "external_id" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_scim_groups" PRIMARY KEY ("id"), CONSTRAINT "FK_scim_groups_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "scim_groups_organization_name_idx" ON "scim_groups" ("organization_id", lower("display_name"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "scim_group_members" ("group_id" uuid NOT NULL, "user_id" uuid NOT NULL, CONSTRAINT "PK_scim_group_members" PRIMARY KEY ("group_id", "user_id"), CONSTRAINT "FK_scim_group_members_group" FOREIGN KEY ("group_id") REFERENCES "scim_groups"("id") ON DELETE CASCADE, CONSTRAINT "FK_scim_group_members_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(
      `CREATE INDEX "scim_group_members_user_idx" ON "scim_group_members" ("user_id")`,
    );
    await queryRunner.query(`ALTER TABLE "users" ADD "scim_external_id" text`);
    await queryRunner.query(
      `ALTER TABLE "users" ADD "scim_provisioned_at" TIMESTAMP WITH TIME ZONE`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "scim_provisioned_at"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "scim_external_id"`);
    await queryRunner.query(`DROP TABLE "scim_group_members"`);
    await queryRunner.query(`DROP TABLE "scim_groups"`);
    await queryRunner.query(`DROP TABLE "scim_tokens"`);
  }
}
