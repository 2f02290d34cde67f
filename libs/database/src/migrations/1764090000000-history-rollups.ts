import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Analytics over the history (issue 16) read rollups, never the million
 * cases: `history_case_rollups` counts a tenant's cases per type, subtype,
 * modality, UTC day and work status — cases, verified ones by verdict, the
 * sum and count of confidence scores, and the sum and count of the chance
 * baselines the verified ones record — and `history_analyst_rollups` the
 * same per analyst (a case counts once for each distinct analyst it names),
 * which the `analyst_id` filter reads. Classified cases are never counted:
 * they never appear in analytics.
 *
 * Statement-level triggers with transition tables keep both in the
 * statement that inserts, updates or deletes cases, whoever writes them
 * (the work triggers, the import, verdicts, the bench's seed): the old rows
 * count −1 and the new ones +1, netted per key, upserted in key order (so two
 * transactions lock shared rows in the same order and cannot deadlock), and
 * rows whose count falls to 0 are deleted. An update that changes nothing a
 * rollup counts writes nothing. TRUNCATE empties both.
 *
 * A missing subtype or modality is stored as '' (primary keys have no nulls).
 * Sums of confidence are numeric, so adding and removing a case leaves them
 * exact. No TypeORM entity maps these tables; libs/analytics reads them in SQL.
 */
const KEY = ['organization_id', 'mode', 'type', 'subtype', 'modality', 'day', 'work_status'];
const COUNTS = [
  'cases',
  'verified',
  'hits',
  'partials',
  'misses',
  'confidence_sum',
  'confidence_count',
  'baseline_sum',
  'baseline_count',
];

/** One changed case's contribution, signed by `sign`. */
const CONTRIBUTION = `
  r.organization_id, r.mode, r.type, coalesce(r.subtype, '') AS subtype,
  coalesce(r.modality, '') AS modality, (r.date AT TIME ZONE 'UTC')::date AS day, r.work_status,
  sign AS cases,
  sign * (r.verdict IS NOT NULL)::int AS verified,
  sign * (r.verdict IS NOT DISTINCT FROM 'hit')::int AS hits,
  sign * (r.verdict IS NOT DISTINCT FROM 'partial')::int AS partials,
  sign * (r.verdict IS NOT DISTINCT FROM 'miss')::int AS misses,
  sign * coalesce(r.confidence_score, 0)::numeric AS confidence_sum,
  sign * (r.confidence_score IS NOT NULL)::int AS confidence_count,
  sign * CASE WHEN r.verdict IS NULL THEN 0 ELSE coalesce(r.chance_baseline, 0) END::numeric AS baseline_sum,
  sign * (r.verdict IS NOT NULL AND r.chance_baseline IS NOT NULL)::int AS baseline_count`;

/** The changes of `tables` (each a signed set of cases); per analyst, each distinct analyst of a case once. */
function changes(tables: { name: string; sign: number }[], perAnalyst = false): string {
  return tables
    .map(({ name, sign }) =>
      perAnalyst
        ? `SELECT a.analyst, ${CONTRIBUTION} FROM ${name} r CROSS JOIN (SELECT ${sign} AS sign) s
             CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(r.analysts) x) a(analyst) WHERE NOT r.classified`
        : `SELECT ${CONTRIBUTION} FROM ${name} r CROSS JOIN (SELECT ${sign} AS sign) s WHERE NOT r.classified`,
    )
    .join(' UNION ALL ');
}

/** The statements that apply the changes of `tables` to both rollups. */
function apply(tables: { name: string; sign: number }[], backfill = false): string {
  const source = changes(tables);
  const analystSource = changes(tables, true);
  const key = KEY.join(', ');
  const sums = COUNTS.map((c) => `sum(${c}) AS ${c}`).join(', ');
  const nonZero = COUNTS.map((c) => `sum(${c}) <> 0`).join(' OR ');
  const set = COUNTS.map((c) => `${c} = t.${c} + EXCLUDED.${c}`).join(', ');
  const analystKey = ['organization_id', 'mode', 'analyst', ...KEY.slice(2)].join(', ');
  return `
        INSERT INTO history_case_rollups AS t (${key}, ${COUNTS.join(', ')})
        SELECT ${key}, ${sums} FROM (${source}) c
         GROUP BY ${key} HAVING ${nonZero} ORDER BY ${key}
        ON CONFLICT (${key}) DO UPDATE SET ${set};
${
  backfill
    ? ''
    : `
        DELETE FROM history_case_rollups WHERE cases <= 0
           AND (${key}) IN (SELECT ${key} FROM (${source}) c);`
}
        INSERT INTO history_analyst_rollups AS t (${analystKey}, ${COUNTS.join(', ')})
        SELECT ${analystKey}, ${sums} FROM (${analystSource}) c
         GROUP BY ${analystKey} HAVING ${nonZero} ORDER BY ${analystKey}
        ON CONFLICT (${analystKey}) DO UPDATE SET ${set};${
          backfill
            ? ''
            : `
        DELETE FROM history_analyst_rollups WHERE cases <= 0
           AND (${analystKey}) IN (SELECT ${analystKey} FROM (${analystSource}) c);`
        }`;
}

export class HistoryRollups1764090000000 implements MigrationInterface {
  name = 'HistoryRollups1764090000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const counts = `"cases" bigint NOT NULL, "verified" bigint NOT NULL, "hits" bigint NOT NULL, "partials" bigint NOT NULL, "misses" bigint NOT NULL, "confidence_sum" numeric NOT NULL, "confidence_count" bigint NOT NULL, "baseline_sum" numeric NOT NULL, "baseline_count" bigint NOT NULL`;
    await queryRunner.query(
      `CREATE TABLE "history_case_rollups" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "type" text NOT NULL, "subtype" text NOT NULL, "modality" text NOT NULL, "day" date NOT NULL, "work_status" text NOT NULL, ${counts}, CONSTRAINT "PK_history_case_rollups" PRIMARY KEY ("organization_id", "mode", "type", "subtype", "modality", "day", "work_status"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "history_case_rollups_day_idx" ON "history_case_rollups" ("organization_id", "mode", "day")`,
    );
    await queryRunner.query(
      `CREATE TABLE "history_analyst_rollups" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "analyst" text NOT NULL, "type" text NOT NULL, "subtype" text NOT NULL, "modality" text NOT NULL, "day" date NOT NULL, "work_status" text NOT NULL, ${counts}, CONSTRAINT "PK_history_analyst_rollups" PRIMARY KEY ("organization_id", "mode", "analyst", "type", "subtype", "modality", "day", "work_status"))`,
    );
    // Transition tables are visible to the trigger function's own statements only, hence one branch each.
    await queryRunner.query(`
      CREATE FUNCTION history_rollups_track() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN${apply([{ name: 'added', sign: 1 }])}
        ELSIF TG_OP = 'UPDATE' THEN${apply([
          { name: 'removed', sign: -1 },
          { name: 'added', sign: 1 },
        ])}
        ELSIF TG_OP = 'DELETE' THEN${apply([{ name: 'removed', sign: -1 }])}
        ELSE
          TRUNCATE history_case_rollups, history_analyst_rollups;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER history_rollups_added AFTER INSERT ON history_cases REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION history_rollups_track()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER history_rollups_changed AFTER UPDATE ON history_cases REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION history_rollups_track()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER history_rollups_removed AFTER DELETE ON history_cases REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION history_rollups_track()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER history_rollups_truncated AFTER TRUNCATE ON history_cases FOR EACH STATEMENT EXECUTE FUNCTION history_rollups_track()`,
    );
    // The cases stored before this migration.
    await queryRunner.query(apply([{ name: 'history_cases', sign: 1 }], true));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER history_rollups_truncated ON history_cases`);
    await queryRunner.query(`DROP TRIGGER history_rollups_removed ON history_cases`);
    await queryRunner.query(`DROP TRIGGER history_rollups_changed ON history_cases`);
    await queryRunner.query(`DROP TRIGGER history_rollups_added ON history_cases`);
    await queryRunner.query(`DROP FUNCTION history_rollups_track()`);
    await queryRunner.query(`DROP TABLE "history_analyst_rollups"`);
    await queryRunner.query(`DROP TABLE "history_case_rollups"`);
  }
}
