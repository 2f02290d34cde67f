import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SSO email domains are proven before they route anyone (issue 37): a claim
 * is `pending` until the domain publishes its TXT record
 * (`_sas-verification.<domain>` = `sas-verification=<token>`), then
 * `verified`. Any number of connections may claim a domain; one only may
 * hold it verified — the first to prove it. Claims made before this were
 * never proven: they start pending, with a token each.
 */
export class SsoDomainVerification1764122400000 implements MigrationInterface {
  name = 'SsoDomainVerification1764122400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sso_email_domains" DROP CONSTRAINT "PK_sso_email_domains"`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_email_domains"
         ADD COLUMN "status" text NOT NULL DEFAULT 'pending',
         ADD COLUMN "verification_token" text,
         ADD COLUMN "verified_at" timestamptz,
         ADD COLUMN "checked_at" timestamptz,
         ADD CONSTRAINT "CHK_sso_email_domains_status" CHECK ("status" IN ('pending', 'verified'))`,
    );
    await queryRunner.query(
      `UPDATE "sso_email_domains"
          SET "verification_token" = md5(random()::text || clock_timestamp()::text || "domain")`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_email_domains" ALTER COLUMN "verification_token" SET NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_email_domains" ADD CONSTRAINT "PK_sso_email_domains" PRIMARY KEY ("connection_id", "domain")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "sso_email_domains_verified_key" ON "sso_email_domains" ("domain") WHERE "status" = 'verified'`,
    );
    await queryRunner.query(
      `CREATE INDEX "sso_email_domains_pending_idx" ON "sso_email_domains" ("checked_at") WHERE "status" = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "sso_email_domains_pending_idx"`);
    await queryRunner.query(`DROP INDEX "sso_email_domains_verified_key"`);
    // One claim per domain again: the verified one, else any (pending claims may be several).
    await queryRunner.query(
      `DELETE FROM "sso_email_domains" WHERE ctid NOT IN (
         SELECT DISTINCT ON ("domain") ctid FROM "sso_email_domains"
          ORDER BY "domain", ("status" = 'verified') DESC, "connection_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_email_domains" DROP CONSTRAINT "PK_sso_email_domains"`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_email_domains" DROP CONSTRAINT "CHK_sso_email_domains_status",
         DROP COLUMN "status", DROP COLUMN "verification_token", DROP COLUMN "verified_at",
         DROP COLUMN "checked_at"`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_email_domains" ADD CONSTRAINT "PK_sso_email_domains" PRIMARY KEY ("domain")`,
    );
  }
}
