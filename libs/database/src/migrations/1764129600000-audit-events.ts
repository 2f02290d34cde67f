import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (`audit_events`): every security-relevant change, who made
 * it, from where, and what changed. It takes in the older `audit_records`
 * (deletions of work, history outcomes and imports), whose actor was a bare
 * subject: an id of the form `usr_…` was a person, `key_…` an API key,
 * anything else an OAuth client.
 *
 * The table is append-only by construction: a trigger refuses UPDATE, DELETE
 * and TRUNCATE, except a DELETE inside `sweep_audit_events`, the retention
 * sweep (the only code that sets `sas.audit_sweep`). The trigger guards
 * against mistakes; against a compromised application the production role
 * is granted SELECT and INSERT on the table and EXECUTE on the function only
 * (docs/audit-log.md), and the function, SECURITY DEFINER, deletes as the
 * table's owner.
 */
export class AuditEvents1764129600000 implements MigrationInterface {
  name = 'AuditEvents1764129600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_events" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" uuid NOT NULL, "action" text NOT NULL, "actor_type" text NOT NULL, "actor_id" text NOT NULL, "target_type" text NOT NULL, "target_id" text NOT NULL, "ip" text, "user_agent" text, "request_id" text, "changes" jsonb, "details" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_audit_events" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_events_tenant_created_idx" ON "audit_events" ("organization_id", "mode", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_events_tenant_actor_idx" ON "audit_events" ("organization_id", "mode", "actor_id", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_events_tenant_target_idx" ON "audit_events" ("organization_id", "mode", "target_id", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_events_created_idx" ON "audit_events" ("created_at")`,
    );
    await queryRunner.query(
      `INSERT INTO audit_events (organization_id, mode, id, action, actor_type, actor_id,
         target_type, target_id, request_id, details, created_at)
       SELECT organization_id, mode, id, action,
              CASE WHEN actor LIKE 'usr\\_%' THEN 'person'
                   WHEN actor LIKE 'key\\_%' THEN 'api_key'
                   ELSE 'client' END,
              actor, split_part(action, '.', 1), resource_id, request_id, details, created_at
         FROM audit_records`,
    );
    await queryRunner.query(`DROP TABLE "audit_records"`);
    await queryRunner.query(`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' AND current_setting('sas.audit_sweep', true) = 'on' THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP
          USING ERRCODE = 'insufficient_privilege',
                HINT = 'expired events are deleted by sweep_audit_events(days, max_rows)';
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
         FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
         FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`,
    );
    await queryRunner.query(`
      CREATE FUNCTION sweep_audit_events(days integer, max_rows integer) RETURNS integer
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
      DECLARE
        deleted integer;
      BEGIN
        IF days IS NULL OR days < 1 THEN
          RAISE EXCEPTION 'audit events are kept at least a day (days = %)', days;
        END IF;
        PERFORM set_config('sas.audit_sweep', 'on', true);
        DELETE FROM audit_events WHERE id IN (
          SELECT id FROM audit_events
           WHERE created_at < now() - make_interval(days => days)
           ORDER BY created_at LIMIT max_rows);
        GET DIAGNOSTICS deleted = ROW_COUNT;
        PERFORM set_config('sas.audit_sweep', 'off', true);
        RETURN deleted;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION sweep_audit_events(integer, integer)`);
    await queryRunner.query(
      `CREATE TABLE "audit_records" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "id" uuid NOT NULL, "action" text NOT NULL, "resource_id" text NOT NULL, "actor" text NOT NULL, "request_id" text, "details" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f903ebdf175f062be69747b0f18" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_records_tenant_created_idx" ON "audit_records" ("organization_id", "mode", "created_at")`,
    );
    await queryRunner.query(
      `INSERT INTO audit_records (organization_id, mode, id, action, resource_id, actor, request_id, details, created_at)
       SELECT organization_id, mode, id, action, target_id, actor_id, request_id, details, created_at
         FROM audit_events
        WHERE action LIKE '%.deleted' OR action LIKE 'history%'`,
    );
    await queryRunner.query(`DROP TABLE "audit_events"`);
    await queryRunner.query(`DROP FUNCTION audit_events_append_only()`);
  }
}
