import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reports (issue 16): a report asked for with POST /v2/reports/generate,
 * built by the worker and kept for download until `expires_at`.
 *
 * The finished document is a PostgreSQL large object (`content_oid`), so
 * every API instance can serve it without shared disks, and both sides move
 * it in 1 MB pieces (lo_put while the worker builds it, lo_get while the API
 * sends it): a million-case CSV (≈ 250 MB) never sits whole in a process's
 * memory. The service caps a document at 1 GB. Beyond that, or when reports
 * are many and large enough to bloat the database's backups, the content
 * belongs in object storage (S3 or compatible, a presigned URL as the
 * download link) with only its key here. A trigger unlinks the large object
 * with its row, so deleting or expiring a report leaves no orphan.
 *
 * No TypeORM entity maps this table: libs/reports reads and writes it in SQL.
 */
export class Reports1764093600000 implements MigrationInterface {
  name = 'Reports1764093600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "reports" (
        "id" uuid NOT NULL,
        "organization_id" uuid NOT NULL,
        "mode" text NOT NULL,
        "report_type" text NOT NULL,
        "format" text NOT NULL,
        "parameters" jsonb NOT NULL DEFAULT '{}',
        "status" text NOT NULL DEFAULT 'queued',
        "failure" text,
        "content_oid" oid,
        "content_type" text,
        "filename" text,
        "byte_size" bigint,
        "row_count" integer,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "started_at" TIMESTAMP WITH TIME ZONE,
        "completed_at" TIMESTAMP WITH TIME ZONE,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "PK_reports" PRIMARY KEY ("id"),
        CONSTRAINT "FK_reports_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
        CONSTRAINT "reports_status_check" CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
        CONSTRAINT "reports_type_check" CHECK (report_type IN ('performance', 'history', 'usage')),
        CONSTRAINT "reports_format_check" CHECK (format IN ('pdf', 'csv', 'json'))
      )`);
    await queryRunner.query(`
      CREATE FUNCTION report_unlink_content() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.content_oid IS NOT NULL THEN PERFORM lo_unlink(OLD.content_oid); END IF;
        RETURN OLD;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "reports_unlink_content" AFTER DELETE ON "reports"
      FOR EACH ROW EXECUTE FUNCTION report_unlink_content()`);
    // The v2 list: the tenant's reports newest first.
    await queryRunner.query(
      `CREATE INDEX "reports_tenant_created_idx" ON "reports" ("organization_id", "mode", "created_at" DESC, "id" DESC)`,
    );
    // Retention and the sweep of reports whose job was lost.
    await queryRunner.query(`CREATE INDEX "reports_expires_idx" ON "reports" ("expires_at")`);
    await queryRunner.query(
      `CREATE INDEX "reports_unfinished_idx" ON "reports" ("created_at") WHERE status IN ('queued', 'processing')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "reports"`);
    await queryRunner.query(`DROP FUNCTION report_unlink_content()`);
  }
}
