import type { MigrationInterface, QueryRunner } from 'typeorm';
import { HistoryRollups1764090000000 } from './1764090000000-history-rollups.js';

/**
 * The rollups of migration 1764090000000 counted cases per UTC day only, so
 * an all-time read summed every day of ten years (the bench measured 306 ms
 * for performance per analyst and 425 ms for a weekly series over the
 * million cases). Now each case counts once at every grain: `day`, `week`
 * (ISO, from Monday), `month`, and `all` (period `-infinity`), in both
 * `history_case_rollups` and `history_analyst_rollups`, and a read takes the
 * coarsest grain that tiles its range (libs/analytics rollup-query.ts):
 * whole months or weeks, the days at either end, the cut parts of a day
 * from the cases.
 *
 * Everything else is as before: statement-level triggers with transition
 * tables keep both tables in the statement that writes cases (old rows −1,
 * new rows +1, netted per key, upserted in key order so two transactions
 * cannot deadlock, rows falling to 0 deleted; an update that changes nothing
 * counted writes nothing); classified cases never count; a missing subtype
 * or modality is ''. The tables are rebuilt from `history_cases`.
 */
const GRAINS = `(VALUES ('day'), ('week'), ('month'), ('all')) g(grain)`;
const PERIOD = `CASE g.grain WHEN 'all' THEN '-infinity'::date WHEN 'day' THEN (r.date AT TIME ZONE 'UTC')::date
    ELSE date_trunc(g.grain, r.date AT TIME ZONE 'UTC')::date END`;
const KEY = [
  'organization_id',
  'mode',
  'grain',
  'period',
  'type',
  'subtype',
  'modality',
  'work_status',
];
const ANALYST_KEY = ['organization_id', 'mode', 'analyst', ...KEY.slice(2)];
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

/** One changed case's contribution at one grain, signed by `sign`. */
const CONTRIBUTION = `
  r.organization_id, r.mode, g.grain, ${PERIOD} AS period, r.type,
  coalesce(r.subtype, '') AS subtype, coalesce(r.modality, '') AS modality, r.work_status,
  s.sign AS cases,
  s.sign * (r.verdict IS NOT NULL)::int AS verified,
  s.sign * (r.verdict IS NOT DISTINCT FROM 'hit')::int AS hits,
  s.sign * (r.verdict IS NOT DISTINCT FROM 'partial')::int AS partials,
  s.sign * (r.verdict IS NOT DISTINCT FROM 'miss')::int AS misses,
  s.sign * coalesce(r.confidence_score, 0)::numeric AS confidence_sum,
  s.sign * (r.confidence_score IS NOT NULL)::int AS confidence_count,
  s.sign * CASE WHEN r.verdict IS NULL THEN 0 ELSE coalesce(r.chance_baseline, 0) END::numeric AS baseline_sum,
  s.sign * (r.verdict IS NOT NULL AND r.chance_baseline IS NOT NULL)::int AS baseline_count`;

/** The changes of `tables` (each a signed set of cases); per analyst, each distinct analyst of a case once. */
function changes(tables: { name: string; sign: number }[], perAnalyst: boolean): string {
  return tables
    .map(({ name, sign }) =>
      perAnalyst
        ? `SELECT a.analyst, ${CONTRIBUTION} FROM ${name} r CROSS JOIN (SELECT ${sign} AS sign) s
             CROSS JOIN ${GRAINS}
             CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(r.analysts) x) a(analyst) WHERE NOT r.classified`
        : `SELECT ${CONTRIBUTION} FROM ${name} r CROSS JOIN (SELECT ${sign} AS sign) s
             CROSS JOIN ${GRAINS} WHERE NOT r.classified`,
    )
    .join(' UNION ALL ');
}

function upsert(table: string, keyColumns: string[], source: string, prune: boolean): string {
  const key = keyColumns.join(', ');
  const sums = COUNTS.map((c) => `sum(${c}) AS ${c}`).join(', ');
  const nonZero = COUNTS.map((c) => `sum(${c}) <> 0`).join(' OR ');
  const set = COUNTS.map((c) => `${c} = t.${c} + EXCLUDED.${c}`).join(', ');
  const insert = `
        INSERT INTO ${table} AS t (${key}, ${COUNTS.join(', ')})
        SELECT ${key}, ${sums} FROM (${source}) c
         GROUP BY ${key} HAVING ${nonZero} ORDER BY ${key}
        ON CONFLICT (${key}) DO UPDATE SET ${set};`;
  if (!prune) return insert;
  return `${insert}
        DELETE FROM ${table} WHERE cases <= 0 AND (${key}) IN (SELECT ${key} FROM (${source}) c);`;
}

/** The statements that apply the changes of `tables` to both rollups (`prune`: delete emptied rows). */
function apply(tables: { name: string; sign: number }[], prune = true): string {
  return (
    upsert('history_case_rollups', KEY, changes(tables, false), prune) +
    upsert('history_analyst_rollups', ANALYST_KEY, changes(tables, true), prune)
  );
}

/**
 * The body of `history_rollups_track()` after CREATE (or CREATE OR REPLACE). Transition tables are
 * visible to the trigger function's own statements only, hence one branch each.
 * `pruneAfterInsert`: whether inserted cases also look for emptied rows to delete, which they never
 * leave (migration 1764118800000 stopped it).
 */
export function rollupTrackFunction({ pruneAfterInsert }: { pruneAfterInsert: boolean }): string {
  return `FUNCTION history_rollups_track() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN${apply([{ name: 'added', sign: 1 }], pruneAfterInsert)}
        ELSIF TG_OP = 'UPDATE' THEN${apply([
          { name: 'removed', sign: -1 },
          { name: 'added', sign: 1 },
        ])}
        ELSIF TG_OP = 'DELETE' THEN${apply([{ name: 'removed', sign: -1 }])}
        ELSE
          TRUNCATE history_case_rollups, history_analyst_rollups;
        END IF;
        RETURN NULL;
      END $$`;
}

const COUNT_COLUMNS = COUNTS.map(
  (c) => `"${c}" ${c.endsWith('_sum') ? 'numeric' : 'bigint'} NOT NULL`,
).join(', ');

export class HistoryRollupGrains1764097200000 implements MigrationInterface {
  name = 'HistoryRollupGrains1764097200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await dropRollups(queryRunner);
    await queryRunner.query(
      `CREATE TABLE "history_case_rollups" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "grain" text NOT NULL, "period" date NOT NULL, "type" text NOT NULL, "subtype" text NOT NULL, "modality" text NOT NULL, "work_status" text NOT NULL, ${COUNT_COLUMNS}, CONSTRAINT "PK_history_case_rollups" PRIMARY KEY ("organization_id", "mode", "grain", "period", "type", "subtype", "modality", "work_status"), CONSTRAINT "CHK_history_case_rollups_grain" CHECK ("grain" IN ('day', 'week', 'month', 'all')))`,
    );
    await queryRunner.query(
      `CREATE TABLE "history_analyst_rollups" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "analyst" text NOT NULL, "grain" text NOT NULL, "period" date NOT NULL, "type" text NOT NULL, "subtype" text NOT NULL, "modality" text NOT NULL, "work_status" text NOT NULL, ${COUNT_COLUMNS}, CONSTRAINT "PK_history_analyst_rollups" PRIMARY KEY ("organization_id", "mode", "analyst", "grain", "period", "type", "subtype", "modality", "work_status"), CONSTRAINT "CHK_history_analyst_rollups_grain" CHECK ("grain" IN ('day', 'week', 'month', 'all')))`,
    );
    // Performance per analyst reads every analyst's all-time rows of a tenant.
    await queryRunner.query(
      `CREATE INDEX "history_analyst_rollups_all_idx" ON "history_analyst_rollups" ("organization_id", "mode") WHERE "grain" = 'all'`,
    );
    await queryRunner.query(`CREATE ${rollupTrackFunction({ pruneAfterInsert: true })}`);
    await createTriggers(queryRunner);
    await queryRunner.query(apply([{ name: 'history_cases', sign: 1 }], false));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropRollups(queryRunner);
    // The day-only rollups, rebuilt from the cases as their own migration built them.
    await new HistoryRollups1764090000000().up(queryRunner);
  }
}

async function dropRollups(queryRunner: QueryRunner): Promise<void> {
  for (const trigger of ['truncated', 'removed', 'changed', 'added']) {
    await queryRunner.query(`DROP TRIGGER history_rollups_${trigger} ON history_cases`);
  }
  await queryRunner.query(`DROP FUNCTION history_rollups_track()`);
  await queryRunner.query(`DROP TABLE "history_analyst_rollups"`);
  await queryRunner.query(`DROP TABLE "history_case_rollups"`);
}

async function createTriggers(queryRunner: QueryRunner): Promise<void> {
  const triggers = [
    ['added', 'INSERT', 'REFERENCING NEW TABLE AS added'],
    ['changed', 'UPDATE', 'REFERENCING OLD TABLE AS removed NEW TABLE AS added'],
    ['removed', 'DELETE', 'REFERENCING OLD TABLE AS removed'],
    ['truncated', 'TRUNCATE', ''],
  ];
  for (const [name, event, transition] of triggers) {
    await queryRunner.query(
      `CREATE TRIGGER history_rollups_${name} AFTER ${event} ON history_cases ${transition} FOR EACH STATEMENT EXECUTE FUNCTION history_rollups_track()`,
    );
  }
}
