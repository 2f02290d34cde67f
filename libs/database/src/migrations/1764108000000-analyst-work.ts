import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People do the work (issue 18, docs/analysts.md):
 * - `users.roles`: what a member does — `admin`, `analyst`, `judge`, several
 *   allowed. Accounts from before keep running the organisation (`admin`).
 *   An invitation is a one-time token kept only as its SHA-256.
 * - `work_taskings`: one per piece of work given to people — the random
 *   target reference number, the target (revealed to the analysts once the
 *   work is done; deleted with the work), its commitment (SHA-256 of
 *   `{nonce}:{target}`) and the nonce (revealed with it),
 *   how many analysts, the deadline, and whether it is judged.
 * - `assignments`: one per analyst on a tasking; the submission lives on it
 *   (one per analyst, amended in place until the deadline), its sketches in
 *   `assignment_sketches`.
 * - `targets` and `target_photos`: the organisation's target pool, where
 *   judging draws its decoys from.
 * - `judging_tasks`: one per judged piece of work, with the candidates in the
 *   order the judge sees them; `judged_trials`: one per analyst per judged
 *   task, the rows every track record is summed from.
 */
export class AnalystWork1764108000000 implements MigrationInterface {
  name = 'AnalystWork1764108000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "users" ADD "roles" text array NOT NULL DEFAULT '{admin}', ADD "invitation_hash" text, ADD "invitation_expires_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "users" ADD CONSTRAINT "CHK_users_roles" CHECK ("roles" <@ ARRAY['admin', 'analyst', 'judge']::text[])`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "users_invitation_hash_key" ON "users" ("invitation_hash") WHERE "invitation_hash" IS NOT NULL`,
    );

    await queryRunner.query(`
      CREATE TABLE "work_taskings" (
        "id" uuid PRIMARY KEY,
        "organization_id" uuid NOT NULL,
        "mode" text NOT NULL,
        "work_kind" text NOT NULL CHECK ("work_kind" IN ('session', 'analysis', 'dowsing')),
        "work_id" uuid NOT NULL,
        "target_reference_number" text NOT NULL,
        "target" text,
        "target_commitment" text NOT NULL,
        "target_nonce" text NOT NULL,
        "target_id" uuid,
        "modality" text,
        "question_type" text,
        "duration_minutes" integer NOT NULL,
        "analyst_count" smallint NOT NULL CHECK ("analyst_count" BETWEEN 1 AND 20),
        "judging" boolean NOT NULL DEFAULT false,
        "decoy_count" smallint NOT NULL DEFAULT 4 CHECK ("decoy_count" BETWEEN 1 AND 9),
        "deadline" TIMESTAMP WITH TIME ZONE NOT NULL,
        "closed_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "work_taskings_work_key" UNIQUE ("work_kind", "work_id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "work_taskings_open_deadline_idx" ON "work_taskings" ("deadline") WHERE "closed_at" IS NULL`,
    );

    await queryRunner.query(`
      CREATE TABLE "assignments" (
        "id" uuid PRIMARY KEY,
        "organization_id" uuid NOT NULL,
        "mode" text NOT NULL,
        "tasking_id" uuid NOT NULL REFERENCES "work_taskings" ("id") ON DELETE CASCADE,
        "user_id" uuid NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "status" text NOT NULL CHECK ("status" IN ('assigned', 'submitted', 'declined', 'expired', 'completed', 'cancelled')),
        "deadline" TIMESTAMP WITH TIME ZONE NOT NULL,
        "descriptors" text array,
        "latitude" double precision,
        "longitude" double precision,
        "notes" text,
        "confidence" double precision,
        "submitted_at" TIMESTAMP WITH TIME ZONE,
        "declined_at" TIMESTAMP WITH TIME ZONE,
        "decline_reason" text,
        "event_sequence" integer NOT NULL DEFAULT 0,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "assignments_tasking_user_key" UNIQUE ("tasking_id", "user_id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "assignments_user_idx" ON "assignments" ("user_id", "created_at" DESC, "id" DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX "assignments_open_user_idx" ON "assignments" ("user_id") WHERE "status" IN ('assigned', 'submitted')`,
    );

    await queryRunner.query(`
      CREATE TABLE "assignment_sketches" (
        "id" uuid PRIMARY KEY,
        "assignment_id" uuid NOT NULL REFERENCES "assignments" ("id") ON DELETE CASCADE,
        "position" smallint NOT NULL,
        "content_type" text NOT NULL CHECK ("content_type" IN ('image/png', 'image/jpeg', 'image/svg+xml')),
        "bytes" bytea NOT NULL,
        "sha256" text NOT NULL,
        "description" text,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "assignment_sketches_position_key" UNIQUE ("assignment_id", "position")
      )`);

    await queryRunner.query(`
      CREATE TABLE "targets" (
        "id" uuid PRIMARY KEY,
        "organization_id" uuid NOT NULL,
        "mode" text NOT NULL,
        "description" text NOT NULL,
        "descriptors" text array NOT NULL DEFAULT '{}',
        "latitude" double precision,
        "longitude" double precision,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX "targets_tenant_created_idx" ON "targets" ("organization_id", "mode", "created_at" DESC, "id" DESC)`,
    );
    await queryRunner.query(`
      CREATE TABLE "target_photos" (
        "id" uuid PRIMARY KEY,
        "target_id" uuid NOT NULL REFERENCES "targets" ("id") ON DELETE CASCADE,
        "position" smallint NOT NULL,
        "source_url" text NOT NULL,
        "status" text NOT NULL CHECK ("status" IN ('fetched', 'failed')),
        "content_type" text,
        "bytes" bytea,
        "width" integer,
        "height" integer,
        "failure" text,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "target_photos_position_key" UNIQUE ("target_id", "position")
      )`);

    await queryRunner.query(`
      CREATE TABLE "judging_tasks" (
        "id" uuid PRIMARY KEY,
        "organization_id" uuid NOT NULL,
        "mode" text NOT NULL,
        "tasking_id" uuid NOT NULL REFERENCES "work_taskings" ("id") ON DELETE CASCADE,
        "judge_user_id" uuid REFERENCES "users" ("id") ON DELETE SET NULL,
        "status" text NOT NULL CHECK ("status" IN ('awaiting_judge', 'pending', 'ranked', 'cancelled')),
        "candidates" jsonb NOT NULL,
        "true_candidate_id" uuid NOT NULL,
        "ranking" uuid array,
        "ranked_at" TIMESTAMP WITH TIME ZONE,
        "event_sequence" integer NOT NULL DEFAULT 0,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "judging_tasks_tasking_key" UNIQUE ("tasking_id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "judging_tasks_judge_idx" ON "judging_tasks" ("judge_user_id", "created_at" DESC, "id" DESC)`,
    );

    await queryRunner.query(`
      CREATE TABLE "judged_trials" (
        "id" uuid PRIMARY KEY,
        "organization_id" uuid NOT NULL,
        "judging_task_id" uuid NOT NULL REFERENCES "judging_tasks" ("id") ON DELETE CASCADE,
        "user_id" uuid NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
        "work_kind" text NOT NULL,
        "modality" text,
        "hit" boolean NOT NULL,
        "rank" smallint NOT NULL,
        "set_size" smallint NOT NULL,
        "saic_accuracy" double precision,
        "saic_reliability" double precision,
        "judged_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "judged_trials_task_user_key" UNIQUE ("judging_task_id", "user_id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "judged_trials_user_idx" ON "judged_trials" ("user_id", "work_kind", "modality")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'judged_trials',
      'judging_tasks',
      'target_photos',
      'targets',
      'assignment_sketches',
      'assignments',
      'work_taskings',
    ]) {
      await queryRunner.query(`DROP TABLE "${table}"`);
    }
    await queryRunner.query(`DROP INDEX "users_invitation_hash_key"`);
    await queryRunner.query(`ALTER TABLE "users" DROP CONSTRAINT "CHK_users_roles"`);
    await queryRunner.query(
      `ALTER TABLE "users" DROP COLUMN "invitation_expires_at", DROP COLUMN "invitation_hash", DROP COLUMN "roles"`,
    );
  }
}
