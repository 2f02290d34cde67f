import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * History: every finished piece of work as a case, and cases imported from
 * a team's earlier records (docs/history.md).
 *
 * Triggers on sessions, analyses and dowsing_queries write a work's case in
 * the statement that finishes it (status completed or failed) and delete it
 * with its source, so no code path that finishes or deletes work can forget
 * its case. Only the work's columns are rewritten when a source changes
 * again; the verified outcome belongs to the case.
 *
 * Search runs on PostgreSQL's contrib extensions alone (the embedded binary
 * has no PostGIS or pgvector):
 * - `document`, a generated tsvector (target A, descriptors and outcome B,
 *   description C), under a GIN index led by the organisation (btree_gin;
 *   not the mode, whose two values would each key half the table);
 * - `earth`, a generated point on a sphere of the mean Earth radius
 *   (6,371,008.8 m, the radius of the haversine distances the API reports)
 *   as a 3-D cube, under a GiST index led by the tenant (btree_gist): radius
 *   searches read the cube around the centre, nearest-case searches order by
 *   the chord distance `<->`, which orders exactly as the great-circle one;
 * - trigram similarity (pg_trgm) scores the short target (≤ 1000
 *   characters) of similar-case candidates found by those indexes; no
 *   trigram index: `%` through one was measured at 2–5 s on a million cases
 *   whose targets are written alike, and over long text ≈ 1 s;
 * - a b-tree on (tenant, date, id) for newest-first pages and cursors.
 *
 * No TypeORM entity maps this table (its schema builder knows neither cube
 * nor generated tsvector columns); libs/history reads and writes it in SQL.
 */
export class HistoryCases1764086400000 implements MigrationInterface {
  name = 'HistoryCases1764086400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const extension of ['cube', 'pg_trgm', 'btree_gist', 'btree_gin']) {
      await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS ${extension}`);
    }
    await queryRunner.query(`
      CREATE FUNCTION history_case_document(target text, descriptors text[], outcome text, description text)
      RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT setweight(to_tsvector('english'::regconfig, coalesce(target, '')), 'A')
            || setweight(to_tsvector('english'::regconfig, coalesce(array_to_string(descriptors, ' '), '')), 'B')
            || setweight(to_tsvector('english'::regconfig, coalesce(outcome, '')), 'B')
            || setweight(to_tsvector('english'::regconfig, coalesce(description, '')), 'C')
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION history_earth_point(latitude float8, longitude float8)
      RETURNS cube LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN latitude IS NULL OR longitude IS NULL THEN NULL ELSE cube(ARRAY[
          6371008.8 * cos(radians(latitude)) * cos(radians(longitude)),
          6371008.8 * cos(radians(latitude)) * sin(radians(longitude)),
          6371008.8 * sin(radians(latitude))]) END
      $$`);
    await queryRunner.query(`
      CREATE TABLE "history_cases" (
        "organization_id" uuid NOT NULL,
        "mode" text NOT NULL,
        "id" uuid NOT NULL,
        "source_type" text NOT NULL,
        "source_id" uuid,
        "external_id" text,
        "type" text NOT NULL,
        "subtype" text,
        "work_status" text NOT NULL,
        "classified" boolean NOT NULL DEFAULT false,
        "date" TIMESTAMP WITH TIME ZONE NOT NULL,
        "target" text NOT NULL,
        "client" text,
        "analysts" text array NOT NULL DEFAULT '{}',
        "duration_minutes" integer,
        "modality" text,
        "phases" text array NOT NULL DEFAULT '{}',
        "descriptors" text array NOT NULL DEFAULT '{}',
        "description" text,
        "latitude" double precision,
        "longitude" double precision,
        "confidence_score" double precision,
        "chance_baseline" double precision,
        "verdict" text,
        "outcome" text,
        "location_found" boolean,
        "true_latitude" double precision,
        "true_longitude" double precision,
        "verification" text,
        "independent_verification" boolean NOT NULL DEFAULT false,
        "accuracy_confirmed" boolean NOT NULL DEFAULT false,
        "verified_by" text,
        "verified_at" TIMESTAMP WITH TIME ZONE,
        "event_sequence" integer NOT NULL DEFAULT 0,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "document" tsvector GENERATED ALWAYS AS (history_case_document(target, descriptors, outcome, description)) STORED,
        "earth" cube GENERATED ALWAYS AS (history_earth_point(coalesce(true_latitude, latitude), coalesce(true_longitude, longitude))) STORED,
        CONSTRAINT "PK_history_cases" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_history_cases_source" UNIQUE ("source_id"),
        CONSTRAINT "history_cases_verdict_check" CHECK (verdict IN ('hit', 'partial', 'miss'))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "history_cases_external_id_idx" ON "history_cases" ("organization_id", "mode", "external_id") WHERE external_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "history_cases_tenant_date_idx" ON "history_cases" ("organization_id", "mode", "date" DESC, "id" DESC) WHERE NOT classified`,
    );
    await queryRunner.query(
      `CREATE INDEX "history_cases_tenant_type_date_idx" ON "history_cases" ("organization_id", "mode", "type", "date" DESC, "id" DESC) WHERE NOT classified`,
    );
    await queryRunner.query(
      `CREATE INDEX "history_cases_document_idx" ON "history_cases" USING gin ("organization_id", "document") WHERE NOT classified`,
    );
    await queryRunner.query(
      `CREATE INDEX "history_cases_earth_idx" ON "history_cases" USING gist ("organization_id", "mode", "earth") WHERE NOT classified AND earth IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "history_cases_verified_idx" ON "history_cases" ("organization_id", "mode", "type", "subtype", "verified_at" DESC) INCLUDE ("verdict", "chance_baseline") WHERE verdict IS NOT NULL AND work_status = 'completed'`,
    );

    // Degrees keep 9 decimals (0.1 mm): a subnormal value such as 5e-324 would make
    // radians() and the trigonometry of the generated point and of distances fail
    // with "value out of range: underflow". Generated columns are computed after it.
    await queryRunner.query(`
      CREATE FUNCTION history_case_round_degrees() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.latitude := round(NEW.latitude::numeric, 9)::float8;
        NEW.longitude := round(NEW.longitude::numeric, 9)::float8;
        NEW.true_latitude := round(NEW.true_latitude::numeric, 9)::float8;
        NEW.true_longitude := round(NEW.true_longitude::numeric, 9)::float8;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "history_cases_round_degrees" BEFORE INSERT OR UPDATE ON "history_cases"
      FOR EACH ROW EXECUTE FUNCTION history_case_round_degrees()`);
    // The case's id is a fresh UUIDv7-like value: time-ordered like the service's other ids.
    await queryRunner.query(`
      CREATE FUNCTION history_case_id() RETURNS uuid LANGUAGE sql VOLATILE AS $$
        SELECT (lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
                || '7' || substr(md5(random()::text || clock_timestamp()::text), 1, 3)
                || to_hex(8 + floor(random() * 4)::int)
                || substr(md5(random()::text || clock_timestamp()::text), 1, 15))::uuid
      $$`);
    await createWorkCaseTriggers(queryRunner);
    // A corrected outcome keeps the earlier one in the audit trail.
    await queryRunner.query(`ALTER TABLE "audit_records" ADD "details" jsonb`);
    // Work finished before this migration becomes history too (the update trigger writes its case).
    for (const table of ['sessions', 'analyses', 'dowsing_queries']) {
      await queryRunner.query(
        `UPDATE "${table}" SET updated_at = updated_at + interval '1 microsecond' WHERE status IN ('completed', 'failed')`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_records" DROP COLUMN "details"`);
    await dropWorkCaseTriggers(queryRunner);
    await queryRunner.query(`DROP FUNCTION history_case_id()`);
    await queryRunner.query(`DROP TABLE "history_cases"`);
    await queryRunner.query(`DROP FUNCTION history_case_round_degrees()`);
    await queryRunner.query(`DROP FUNCTION history_earth_point(float8, float8)`);
    await queryRunner.query(`DROP FUNCTION history_case_document(text, text[], text, text)`);
  }
}

/**
 * The work tables' triggers that wrote finished work's cases, until
 * migration 1764126000000 moved that mapping into libs/history (its down
 * puts them back).
 */
export async function createWorkCaseTriggers(queryRunner: QueryRunner): Promise<void> {
  // One upsert for every source: only the work's columns change on conflict. (A row
  // variable's unset fields are null, not the columns' defaults.)
  await queryRunner.query(`
      CREATE FUNCTION history_case_upsert(c history_cases) RETURNS void LANGUAGE sql AS $$
        INSERT INTO history_cases (organization_id, mode, id, source_type, source_id, type, subtype,
               work_status, classified, date, target, analysts, duration_minutes, modality, phases,
               descriptors, description, latitude, longitude, confidence_score, chance_baseline)
        VALUES (c.organization_id, c.mode, c.id, c.source_type, c.source_id, c.type, c.subtype,
               c.work_status, coalesce(c.classified, false), c.date, c.target, coalesce(c.analysts, '{}'),
               c.duration_minutes, c.modality, coalesce(c.phases, '{}'), coalesce(c.descriptors, '{}'),
               c.description, c.latitude, c.longitude, c.confidence_score, c.chance_baseline)
        ON CONFLICT (source_id) DO UPDATE SET
          type = EXCLUDED.type, subtype = EXCLUDED.subtype, work_status = EXCLUDED.work_status,
          classified = EXCLUDED.classified, date = EXCLUDED.date, target = EXCLUDED.target,
          analysts = EXCLUDED.analysts, duration_minutes = EXCLUDED.duration_minutes,
          modality = EXCLUDED.modality, phases = EXCLUDED.phases, descriptors = EXCLUDED.descriptors,
          description = EXCLUDED.description, latitude = EXCLUDED.latitude,
          longitude = EXCLUDED.longitude, confidence_score = EXCLUDED.confidence_score,
          chance_baseline = EXCLUDED.chance_baseline, updated_at = now()
      $$`);
  await queryRunner.query(`
      CREATE FUNCTION history_case_from_session() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE c history_cases;
      BEGIN
        c.organization_id := NEW.organization_id; c.mode := NEW.mode; c.id := history_case_id();
        c.source_type := 'session'; c.source_id := NEW.id;
        c.type := NEW.type; c.subtype := NEW.modality; c.work_status := NEW.status;
        c.classified := NEW.privacy_level = 'classified';
        c.date := coalesce(NEW.completed_at, NEW.updated_at); c.target := NEW.target;
        c.analysts := coalesce(
          (SELECT array_agg(a->>'analyst_id') FROM jsonb_array_elements(NEW.results->'collaborative_insights') a),
          CASE WHEN NEW.analyst_id IS NULL THEN '{}'::text[] ELSE ARRAY[NEW.analyst_id] END);
        c.duration_minutes := NEW.duration_minutes; c.modality := NEW.modality;
        c.phases := CASE WHEN NEW.status = 'completed'
                         THEN ARRAY['data_collection', 'analysis', 'validation']
                         ELSE ARRAY['data_collection'] END;
        c.descriptors := coalesce(ARRAY(SELECT jsonb_array_elements_text(NEW.results->'descriptors')), '{}');
        c.description := coalesce(
          (SELECT string_agg(s->>'description', ' ') FROM jsonb_array_elements(NEW.results->'sketches') s),
          CASE WHEN NEW.status = 'failed' THEN 'Failed: ' || coalesce(NEW.failure_reason, 'unknown') END);
        c.latitude := (NEW.results->'coordinates'->>'latitude')::float8;
        c.longitude := (NEW.results->'coordinates'->>'longitude')::float8;
        c.confidence_score := NEW.confidence_score;
        PERFORM history_case_upsert(c);
        RETURN NULL;
      END $$`);
  await queryRunner.query(`
      CREATE FUNCTION history_case_from_analysis() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE c history_cases;
      BEGIN
        c.organization_id := NEW.organization_id; c.mode := NEW.mode; c.id := history_case_id();
        c.source_type := 'analysis'; c.source_id := NEW.id;
        c.type := 'analysis'; c.subtype := NEW.analysis_type; c.work_status := NEW.status;
        c.date := coalesce(NEW.completed_at, NEW.updated_at);
        c.target := left(coalesce(NULLIF(NEW.description, ''), NEW.target_type || ' target'), 1000);
        c.duration_minutes := greatest(0, round(extract(epoch FROM coalesce(NEW.completed_at, NEW.updated_at) - NEW.created_at) / 60))::int;
        c.modality := NEW.analysis_type; c.phases := coalesce(NEW.steps[1:NEW.steps_done], '{}');
        c.descriptors := coalesce(ARRAY(SELECT jsonb_array_elements_text(NEW.results->'descriptors')), '{}');
        c.description := coalesce(NEW.results->>'summary', 'Failed: ' || coalesce(NEW.failure_message, NEW.failure_reason, 'unknown'));
        c.latitude := NEW.latitude; c.longitude := NEW.longitude;
        c.confidence_score := NEW.confidence_score;
        c.chance_baseline := (NEW.score_details->'judging'->>'p0')::float8;
        PERFORM history_case_upsert(c);
        RETURN NULL;
      END $$`);
  await queryRunner.query(`
      CREATE FUNCTION history_case_from_dowsing_query() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE c history_cases;
      BEGIN
        c.organization_id := NEW.organization_id; c.mode := NEW.mode; c.id := history_case_id();
        c.source_type := 'dowsing_query'; c.source_id := NEW.id;
        c.type := 'dowsing'; c.subtype := NEW.query_type; c.work_status := NEW.status;
        c.date := coalesce(NEW.completed_at, NEW.updated_at); c.target := left(NEW.question, 1000);
        c.duration_minutes := greatest(0, round(extract(epoch FROM coalesce(NEW.completed_at, NEW.updated_at) - NEW.created_at) / 60))::int;
        c.modality := coalesce(NEW.result->'chart_data'->>'chart_type', NEW.variant);
        c.phases := ARRAY[NEW.variant];
        c.description := coalesce(NEW.result->>'answer', 'Failed: ' || coalesce(NEW.failure_message, NEW.failure_reason, 'unknown'));
        c.latitude := coalesce((NEW.result->'coordinates'->>'latitude')::float8, (NEW.context->'location'->>'latitude')::float8);
        c.longitude := coalesce((NEW.result->'coordinates'->>'longitude')::float8, (NEW.context->'location'->>'longitude')::float8);
        c.confidence_score := NEW.confidence;
        c.chance_baseline := (NEW.result->>'baseline')::float8;
        PERFORM history_case_upsert(c);
        RETURN NULL;
      END $$`);
  await queryRunner.query(`
      CREATE FUNCTION history_case_forget_source() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM history_cases WHERE source_id = OLD.id;
        RETURN NULL;
      END $$`);
  for (const [table, fn] of [
    ['sessions', 'history_case_from_session'],
    ['analyses', 'history_case_from_analysis'],
    ['dowsing_queries', 'history_case_from_dowsing_query'],
  ]) {
    await queryRunner.query(`
        CREATE TRIGGER "${table}_history_case_insert" AFTER INSERT ON "${table}"
        FOR EACH ROW WHEN (NEW.status IN ('completed', 'failed')) EXECUTE FUNCTION ${fn}()`);
    await queryRunner.query(`
        CREATE TRIGGER "${table}_history_case_update" AFTER UPDATE ON "${table}"
        FOR EACH ROW WHEN (NEW.status IN ('completed', 'failed') AND
          (OLD.status IS DISTINCT FROM NEW.status OR OLD.updated_at IS DISTINCT FROM NEW.updated_at))
        EXECUTE FUNCTION ${fn}()`);
    await queryRunner.query(`
        CREATE TRIGGER "${table}_history_case_delete" AFTER DELETE ON "${table}"
        FOR EACH ROW EXECUTE FUNCTION history_case_forget_source()`);
  }
}

export async function dropWorkCaseTriggers(queryRunner: QueryRunner): Promise<void> {
  for (const table of WORK_TABLES) {
    for (const suffix of ['insert', 'update', 'delete']) {
      await queryRunner.query(`DROP TRIGGER "${table}_history_case_${suffix}" ON "${table}"`);
    }
  }
  for (const fn of [
    'history_case_from_session()',
    'history_case_from_analysis()',
    'history_case_from_dowsing_query()',
    'history_case_forget_source()',
    'history_case_upsert(history_cases)',
  ]) {
    await queryRunner.query(`DROP FUNCTION ${fn}`);
  }
}

const WORK_TABLES = ['sessions', 'analyses', 'dowsing_queries'];
