import { Injectable } from '@nestjs/common';
import { newUuid, type Tenant } from '#common';
import {
  countMatching,
  haversineSql,
  plannedRows,
  rowMapping,
  Sql,
  SqlConditions,
  type Connection,
  type Queryable,
  type Transaction,
} from '#database';
import type { VerifiedTally } from '#statistics';
import type { CaseType, HistoryCase, OutcomeInput, VerifiedOutcome } from './history-case.js';
import { importedSubtype, type ImportedCase } from './import/import-row.js';
import type { PatternAggregates } from './patterns/history-patterns.js';
import { chordMeters, circleAroundBox } from './search/case-geometry.js';
import {
  hasLocation,
  type CaseSearchFilters,
  type SearchCircle,
} from './search/case-search-filters.js';
import type { SimilarityProbe } from './similar/case-similarity.js';
import { VERIFIED_RECORD_LIMIT, type VerifiedRecordQuery } from './verified-record-query.js';

const CASE = rowMapping<HistoryCase, HistoryCaseColumn>('history_cases', {
  organization_id: 'organizationId',
  mode: 'mode',
  id: 'id',
  source_type: 'sourceType',
  source_id: 'sourceId',
  external_id: 'externalId',
  type: 'type',
  subtype: 'subtype',
  work_status: 'workStatus',
  classified: 'classified',
  date: 'date',
  target: 'target',
  client: 'client',
  analysts: 'analysts',
  duration_minutes: 'durationMinutes',
  modality: 'modality',
  phases: 'phases',
  descriptors: 'descriptors',
  description: 'description',
  latitude: 'latitude',
  longitude: 'longitude',
  confidence_score: 'confidenceScore',
  chance_baseline: 'chanceBaseline',
  verdict: 'verdict',
  outcome: 'outcome',
  location_found: 'locationFound',
  true_latitude: 'trueLatitude',
  true_longitude: 'trueLongitude',
  verification: 'verification',
  independent_verification: 'independentVerification',
  accuracy_confirmed: 'accuracyConfirmed',
  verified_by: 'verifiedBy',
  verified_at: 'verifiedAt',
  event_sequence: 'eventSequence',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
});

/** The columns the service reads and writes (the generated `document` and `earth` are the database's). */
type HistoryCaseColumn =
  | 'organization_id'
  | 'mode'
  | 'id'
  | 'source_type'
  | 'source_id'
  | 'external_id'
  | 'type'
  | 'subtype'
  | 'work_status'
  | 'classified'
  | 'date'
  | 'target'
  | 'client'
  | 'analysts'
  | 'duration_minutes'
  | 'modality'
  | 'phases'
  | 'descriptors'
  | 'description'
  | 'latitude'
  | 'longitude'
  | 'confidence_score'
  | 'chance_baseline'
  | 'verdict'
  | 'outcome'
  | 'location_found'
  | 'true_latitude'
  | 'true_longitude'
  | 'verification'
  | 'independent_verification'
  | 'accuracy_confirmed'
  | 'verified_by'
  | 'verified_at'
  | 'event_sequence'
  | 'created_at'
  | 'updated_at';

type HistoryCaseRow = Record<HistoryCaseColumn, unknown>;

/** The columns of a verified outcome, besides its text, in VerifiedOutcome's order. */
const VERIFIED_OUTCOME_COLUMNS = [
  'verdict',
  'location_found',
  'true_latitude',
  'true_longitude',
  'verification',
  'independent_verification',
  'accuracy_confirmed',
  'verified_by',
  'verified_at',
] as const satisfies readonly HistoryCaseColumn[];

/** What PUT …/outcome writes: the outcome's text, then the verified outcome's columns. */
const OUTCOME_COLUMNS = ['outcome', ...VERIFIED_OUTCOME_COLUMNS] as const;

/** A case of a search page before its row is read: its id and (with text) its relevance. */
export interface RankedCase {
  id: string;
  relevance: number | null;
}

/** Which matches of a search: by offset, or after a case (a cursor). */
export interface MatchWindow {
  limit: number;
  offset?: number;
  after?: string | null;
}

/** A similar-case candidate, with the trigram similarity of its target to the probe's text. */
export interface SimilarCandidate {
  record: HistoryCase;
  /** pg_trgm similarity(); null without probe text. */
  textSimilarity: number | null;
}

/** The verified outcome of a piece of work's case, as analytics counts it. */
export interface SourceOutcome {
  sourceId: string;
  classified: boolean;
  verdict: HistoryCase['verdict'];
  chanceBaseline: number | null;
}

/** One case as a history report lists it: the work's fields and its verified outcome. */
export type ReportedCase = Pick<
  HistoryCase,
  | 'id'
  | 'externalId'
  | 'sourceType'
  | 'type'
  | 'subtype'
  | 'workStatus'
  | 'date'
  | 'target'
  | 'client'
  | 'analysts'
  | 'durationMinutes'
  | 'modality'
  | 'descriptors'
  | 'description'
  | 'latitude'
  | 'longitude'
  | 'confidenceScore'
  | 'chanceBaseline'
  | 'verdict'
  | 'outcome'
  | 'locationFound'
  | 'verifiedBy'
  | 'verifiedAt'
>;

/** Which cases a report covers: its type and ISO dates (both inclusive), or null for open. */
export interface ReportRange {
  type: string | null;
  dateFrom: string | null;
  dateTo: string | null;
}

/** Counts of a report's cases per type, or per UTC month (`group`: the type or `YYYY-MM`). */
export interface ReportTally {
  group: string;
  cases: number;
  verified: number;
  hits: number;
  partials: number;
  misses: number;
  /** Mean chance baseline of the verified cases (the default where a case records none); null when none. */
  baseline: number | null;
}

/** Finished work of one UTC day and kind (the case's source type). */
export interface FinishedDay {
  day: string;
  kind: string;
  finished: number;
  completed: number;
  failed: number;
}

/** What one chunk of a seeded history draws from (`npm run db:seed-history`). */
export interface HistorySeedChunk {
  /** Case numbers `from + 1` .. `to`, of a run whose last number is `last`. */
  from: number;
  to: number;
  last: number;
  /** setseed's value for the chunk (-1..1), so case n has the same content in every run. */
  seed: number;
  /** Words in rank order (the most frequent first). */
  nouns: readonly string[];
  adjectives: readonly string[];
  descriptionWords: readonly string[];
  descriptors: readonly string[];
  /** The cities cases gather around, as parallel arrays; lowerBounds are the cumulative shares. */
  cities: {
    latitudes: readonly number[];
    longitudes: readonly number[];
    sigmasKm: readonly number[];
    lowerBounds: readonly number[];
  };
}

/**
 * The `history_cases` table: a tenant's cases (read, verified, searched,
 * compared, counted for patterns and reports), the imports that write them
 * and the seeding of scale tests. Finished work's cases are still written by
 * the work tables' triggers (migration 1764086400000). Every statement names
 * the tenant; a case's generated `document` and `earth` serve search and
 * are never written.
 */
@Injectable()
export class HistoryCasesRepository {
  constructor(private readonly sql: Sql) {}

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<HistoryCase | null> {
    const [row] = await on.rows<HistoryCaseRow>(
      `SELECT ${CASE.selectList} FROM history_cases
        WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? CASE.fromRow(row) : null;
  }

  /** The case, its row locked until `tx` ends. */
  async findForUpdate(tx: Transaction, tenant: Tenant, id: string): Promise<HistoryCase | null> {
    const [row] = await tx.rows<HistoryCaseRow>(
      `SELECT ${CASE.selectList} FROM history_cases
        WHERE id = $1 AND organization_id = $2 AND mode = $3 FOR UPDATE`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? CASE.fromRow(row) : null;
  }

  /** Records (or replaces) the case's verified outcome; the case as it now is. */
  async recordOutcome(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    input: OutcomeInput,
  ): Promise<HistoryCase | null> {
    const [row] = await tx.rows<HistoryCaseRow>(
      `UPDATE history_cases
          SET ${OUTCOME_COLUMNS.map((column, i) => `${column} = $${i + 4}`).join(', ')},
              event_sequence = event_sequence + 1, updated_at = now()
        WHERE id = $1 AND organization_id = $2 AND mode = $3
        RETURNING ${CASE.selectList}`,
      [id, tenant.organizationId, tenant.mode, input.outcome, ...verifiedOutcomeValues(input)],
    );
    return row ? CASE.fromRow(row) : null;
  }

  // ---------------------------------------------------------------- verified records

  /**
   * The tallies of the tenant's verified record (docs/statistics.md,
   * "Verified outcomes"), one statement read through
   * `history_cases_verified_idx` (tenant, type, subtype, verified_at DESC,
   * with the verdict and the baseline included): the newest
   * VERIFIED_RECORD_LIMIT verified completed cases of each subtype asked for
   * (a backward index-only range scan each), the newest of those overall,
   * counted by baseline and verdict — a few rows, however many cases there
   * are. Classified cases count: only their text is hidden from others. (The
   * null branch orders by `subtype, verified_at`: the planner reads
   * `subtype IS NULL` in index order only when told, else it sorts them all.)
   */
  async verifiedTallies(
    tenant: Tenant,
    query: VerifiedRecordQuery,
    on: Queryable = this.sql,
  ): Promise<VerifiedTally[]> {
    const rows = await on.rows<{ p0: number; verdict: string; cases: number }>(
      `
SELECT coalesce(recent.chance_baseline, $6::float8) AS p0, recent.verdict, count(*)::int AS cases
  FROM (
    SELECT newest.verdict, newest.chance_baseline
      FROM (
        SELECT picked.verdict, picked.chance_baseline, picked.verified_at
          FROM unnest($4::text[]) AS kind(subtype)
          CROSS JOIN LATERAL (
            SELECT verdict, chance_baseline, verified_at FROM history_cases
             WHERE organization_id = $1 AND mode = $2 AND type = $3 AND subtype = kind.subtype
               AND verdict IS NOT NULL AND work_status = 'completed'
             ORDER BY verified_at DESC LIMIT $7) picked
        UNION ALL
        (SELECT verdict, chance_baseline, verified_at FROM history_cases
          WHERE $5::boolean AND organization_id = $1 AND mode = $2 AND type = $3 AND subtype IS NULL
            AND verdict IS NOT NULL AND work_status = 'completed'
          ORDER BY subtype, verified_at DESC LIMIT $7)
      ) newest
     ORDER BY newest.verified_at DESC
     LIMIT $7
  ) recent
 GROUP BY 1, 2`,
      [
        tenant.organizationId,
        tenant.mode,
        query.type,
        [...new Set(query.subtypes.filter((subtype) => subtype !== null))],
        query.subtypes.includes(null),
        query.defaultP0,
        VERIFIED_RECORD_LIMIT,
      ],
    );
    return rows.map((row): VerifiedTally => {
      const cases = Number(row.cases);
      return {
        p0: Number(row.p0),
        hits: row.verdict === 'hit' ? cases : 0,
        partials: row.verdict === 'partial' ? cases : 0,
        misses: row.verdict === 'miss' ? cases : 0,
      };
    });
  }

  /**
   * The cases of these pieces of work that analytics must know of: the
   * classified ones (left out with their work) and the verified ones (their
   * verdict and baseline), by the unique index on `source_id`.
   */
  async sourceOutcomes(
    tenant: Tenant,
    sourceIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<SourceOutcome[]> {
    if (sourceIds.length === 0) return [];
    const rows = await on.rows<{
      source_id: string;
      classified: boolean;
      verdict: HistoryCase['verdict'];
      chance_baseline: number | null;
    }>(
      `SELECT source_id, classified, verdict, chance_baseline FROM history_cases
        WHERE source_id = ANY($3::uuid[]) AND organization_id = $1 AND mode = $2
          AND (classified OR verdict IS NOT NULL)`,
      [tenant.organizationId, tenant.mode, sourceIds],
    );
    return rows.map((row) => ({
      sourceId: row.source_id,
      classified: row.classified,
      verdict: row.verdict,
      chanceBaseline: row.chance_baseline,
    }));
  }

  // ---------------------------------------------------------------- search

  /** How many nodes the text's query has (0: only operators or words like "the", which match nothing). */
  async textQueryNodes(text: string, on: Queryable = this.sql): Promise<number> {
    const [row] = await on.rows<{ nodes: number }>(
      `SELECT numnode(websearch_to_tsquery('english', $1)) AS nodes`,
      [text],
    );
    return Number(row!.nodes);
  }

  /**
   * Matches newest first, by offset or after a case (compared inside
   * PostgreSQL, to the microsecond), with their relevance when there is text:
   * by the indexes (`walk` null), or over the newest `walk` cases of the
   * other filters with the area applied to them.
   */
  async newestMatches(
    tenant: Tenant,
    filters: CaseSearchFilters,
    page: MatchWindow,
    walk: number | null,
    on: Queryable = this.sql,
  ): Promise<RankedCase[]> {
    const where = searchConditions(tenant, filters, { location: walk === null });
    if (page.after) where.and(afterCase(where, tenant, page.after));
    const relevance =
      filters.text === null
        ? 'NULL::float4'
        : `ts_rank_cd(document, ${textQuerySql(where, filters.text)})`;
    const pageSql = `ORDER BY date DESC, id DESC LIMIT ${where.param(page.limit)}${
      page.offset ? ` OFFSET ${where.param(page.offset)}` : ''
    }`;
    if (walk === null) {
      return on.rows<RankedCase>(
        `SELECT id, ${relevance} AS relevance FROM history_cases WHERE ${where.sql} ${pageSql}`,
        where.parameters,
      );
    }
    const inner = where.sql;
    const walkLimit = where.param(walk);
    const inArea = locationCondition(where, filters);
    return on.rows<RankedCase>(
      `SELECT id, ${relevance} AS relevance
         FROM (SELECT id, date, document, ${LOCATED_COLUMNS} FROM history_cases WHERE ${inner}
                ORDER BY date DESC, id DESC LIMIT ${walkLimit}) AS newest
        WHERE ${inArea} ${pageSql}`,
      where.parameters,
    );
  }

  /** How many cases match: exact up to EXACT_COUNT_LIMIT, else the planner's estimate. */
  async countMatches(
    tenant: Tenant,
    filters: CaseSearchFilters,
    on: Queryable = this.sql,
  ): Promise<{ total: number; estimated: boolean }> {
    return countMatching(runOn(on), {
      table: 'history_cases',
      where: searchConditions(tenant, filters),
    });
  }

  /** The planner's estimate of the matches (`location: false`: the area left out). */
  async plannedMatches(
    tenant: Tenant,
    filters: CaseSearchFilters,
    { location = true }: { location?: boolean },
    on: Queryable = this.sql,
  ): Promise<number> {
    return plannedRows(runOn(on), {
      table: 'history_cases',
      where: searchConditions(tenant, filters, { location }),
    });
  }

  /** Of the newest `walkRows` cases matching the other filters, how many were read and how many lie in the area. */
  async sampleArea(
    tenant: Tenant,
    filters: CaseSearchFilters,
    walkRows: number,
    on: Queryable = this.sql,
  ): Promise<{ walked: number; matched: number }> {
    const where = searchConditions(tenant, filters, { location: false });
    const inArea = locationCondition(where, filters);
    const [row] = await on.rows<{ walked: number; matched: number }>(
      `SELECT count(*)::int AS walked, (count(*) FILTER (WHERE ${inArea}))::int AS matched
         FROM (SELECT ${LOCATED_COLUMNS} FROM history_cases WHERE ${where.sql}
                ORDER BY date DESC, id DESC LIMIT ${where.param(walkRows)}) AS newest`,
      where.parameters,
    );
    return { walked: row!.walked, matched: row!.matched };
  }

  /**
   * The cases with these ids, in any order, with a snippet of their text
   * (all of it when short, matches between `marks`) when there is text.
   */
  async readHits(
    tenant: Tenant,
    ids: readonly string[],
    text: string | null,
    marks: { start: string; end: string },
    on: Queryable = this.sql,
  ): Promise<{ record: HistoryCase; snippet: string | null }[]> {
    if (ids.length === 0) return [];
    const parameters: unknown[] = [ids, tenant.organizationId, tenant.mode];
    const snippet =
      text === null
        ? 'NULL::text'
        : `ts_headline('english',
             concat_ws(' — ', target, nullif(array_to_string(descriptors, ', '), ''), outcome, description),
             websearch_to_tsquery('english', $4),
             'StartSel=${marks.start}, StopSel=${marks.end}, MaxWords=30, MinWords=12')`;
    if (text !== null) parameters.push(text);
    const rows = await on.rows<HistoryCaseRow & { snippet: string | null }>(
      `SELECT ${CASE.selectList}, ${snippet} AS snippet FROM history_cases
        WHERE id = ANY($1::uuid[]) AND organization_id = $2 AND mode = $3`,
      parameters,
    );
    return rows.map((row) => ({ record: CASE.fromRow(row), snippet: row.snippet }));
  }

  // ---------------------------------------------------------------- similar cases

  /**
   * Similar-case candidates from index lookups (SimilarCasesService scores
   * them): of the newest WORD_SHARING_CASES cases sharing a word or
   * descriptor with the probe (the document's GIN index, or the date index
   * when the words are common), the targets most alike by trigrams (pg_trgm
   * `similarity()` over those only); the newest cases sharing a word; and the
   * nearest cases (KNN `<->` on the GiST index, with the point bound as a
   * parameter: through a join it was measured at 540 ms). Classified cases
   * are never candidates.
   */
  async similarCandidates(
    tenant: Tenant,
    probe: SimilarityProbe,
    words: string | null,
    limits: { perIndex: number; wordSharing: number },
    on: Queryable = this.sql,
  ): Promise<SimilarCandidate[]> {
    const parameters: unknown[] = [tenant.organizationId, tenant.mode];
    const param = (value: unknown) => {
      parameters.push(value);
      return `$${parameters.length}`;
    };
    const scope = `organization_id = $1 AND mode = $2 AND NOT classified${
      probe.type === null ? '' : ` AND type = ${param(probe.type)}`
    }${probe.excludeId === null ? '' : ` AND id <> ${param(probe.excludeId)}::uuid`}`;
    const text = probe.text === null ? null : param(probe.text);
    const lookups: string[] = [];
    if (words !== null) {
      const sharing = `SELECT id, target FROM history_cases
                        WHERE ${scope} AND document @@ websearch_to_tsquery('english', ${param(words)})
                        ORDER BY date DESC, id DESC`;
      lookups.push(`(SELECT id FROM (${sharing} LIMIT ${limits.perIndex}) AS newest)`);
      if (text !== null) {
        lookups.push(`(SELECT id FROM (${sharing} LIMIT ${limits.wordSharing}) AS sharing
                        ORDER BY similarity(target, ${text}) DESC LIMIT ${limits.perIndex})`);
      }
    }
    if (probe.point !== null) {
      lookups.push(`(SELECT id FROM history_cases WHERE ${scope} AND earth IS NOT NULL
                      ORDER BY earth <-> history_earth_point(${param(probe.point.latitude)}::float8, ${param(probe.point.longitude)}::float8)
                      LIMIT ${limits.perIndex})`);
    }
    if (lookups.length === 0) return [];
    const rows = await on.rows<HistoryCaseRow & { text_similarity: number | null }>(
      `SELECT ${CASE.selectList},
              ${text === null ? 'NULL::float4' : `similarity(target, ${text})`} AS text_similarity
         FROM history_cases WHERE id IN (${lookups.join(' UNION ')})`,
      parameters,
    );
    return rows.map((row) => ({ record: CASE.fromRow(row), textSimilarity: row.text_similarity }));
  }

  // ---------------------------------------------------------------- patterns

  /**
   * One statement for every pattern (docs/history.md, "Patterns"): the
   * newest `window` completed, unclassified cases of the filters — read
   * backwards along `history_cases_tenant_date_idx` or
   * `history_cases_tenant_type_date_idx` (both leave classified cases out),
   * so the work is bounded however many cases the organisation has —
   * materialized once, then aggregated four ways inside PostgreSQL: totals,
   * descriptor terms (trimmed, lower-cased, once per case), grid cells of the
   * case's location (the true one once verified) and UTC weekday, hour and
   * month. Node receives a few hundred rows of counts, never the cases.
   * Terms and cells need `minSupport` cases; at most `candidates` of each
   * are returned (those with the most verified cases, then the most cases).
   */
  async patternAggregates(
    tenant: Tenant,
    filters: {
      type: CaseType | null;
      dateFrom: Date | null;
      dateBefore: Date | null;
      window: number;
      gridDegrees: number;
      minSupport: number;
      candidates: number;
    },
    on: Queryable = this.sql,
  ): Promise<PatternAggregates> {
    const [aggregates] = await on.rows<PatternAggregates>(
      `
WITH recent AS MATERIALIZED (
  SELECT id, date, descriptors, verdict, chance_baseline,
         coalesce(true_latitude, latitude) AS lat,
         CASE WHEN true_latitude IS NOT NULL THEN true_longitude ELSE longitude END AS lng
    FROM history_cases
   WHERE organization_id = $1 AND mode = $2 AND NOT classified AND work_status = 'completed'
     AND ($3::text IS NULL OR type = $3)
     AND ($4::timestamptz IS NULL OR date >= $4)
     AND ($5::timestamptz IS NULL OR date < $5)
   ORDER BY date DESC, id DESC
   LIMIT $6
),
terms AS (
  -- Each case's terms made distinct case by case (a few each): one DISTINCT over every
  -- (case, term) pair spilled to disk at the default work_mem (82 ms of 133; this, 62).
  SELECT t.term, count(*)::int AS cases, count(r.verdict)::int AS verified,
         (count(*) FILTER (WHERE r.verdict = 'hit'))::int AS hits
    FROM recent r
    CROSS JOIN LATERAL (SELECT DISTINCT lower(btrim(d)) AS term FROM unnest(r.descriptors) d) t
   WHERE t.term <> ''
   GROUP BY t.term
),
cells AS (
  SELECT floor(lat / $7::float8)::int AS cell_row, floor(lng / $7::float8)::int AS cell_col,
         count(*)::int AS cases, count(verdict)::int AS verified,
         (count(*) FILTER (WHERE verdict = 'hit'))::int AS hits,
         avg(lat) AS latitude, avg(lng) AS longitude
    FROM recent
   WHERE lat IS NOT NULL AND lng IS NOT NULL
   GROUP BY 1, 2
)
SELECT
  (SELECT jsonb_build_object(
            'cases', count(*),
            'verified', count(verdict),
            'hits', count(*) FILTER (WHERE verdict = 'hit'),
            'chance', avg(chance_baseline) FILTER (WHERE verdict IS NOT NULL),
            'located', count(*) FILTER (WHERE lat IS NOT NULL AND lng IS NOT NULL),
            'first', min(date), 'last', max(date))
     FROM recent) AS totals,
  (SELECT jsonb_build_object('distinct', count(*), 'mentions', coalesce(sum(cases), 0)) FROM terms)
    AS vocabulary,
  (SELECT coalesce(jsonb_agg(t), '[]'::jsonb) FROM (
     SELECT term, cases, verified, hits FROM terms WHERE cases >= $8
      ORDER BY verified DESC, cases DESC, term LIMIT $9) t) AS terms,
  (SELECT count(*)::int FROM cells) AS cells_occupied,
  (SELECT coalesce(jsonb_agg(c), '[]'::jsonb) FROM (
     SELECT cell_row, cell_col, cases, verified, hits, latitude, longitude FROM cells WHERE cases >= $8
      ORDER BY verified DESC, cases DESC, cell_row, cell_col LIMIT $9) c) AS cells,
  (SELECT coalesce(jsonb_agg(b), '[]'::jsonb) FROM (
     SELECT extract(isodow FROM date AT TIME ZONE 'UTC')::int AS weekday,
            extract(hour FROM date AT TIME ZONE 'UTC')::int AS hour,
            extract(month FROM date AT TIME ZONE 'UTC')::int AS month,
            count(*)::int AS cases
       FROM recent
      GROUP BY GROUPING SETS ((1), (2), (3))) b) AS times
`,
      [
        tenant.organizationId,
        tenant.mode,
        filters.type,
        filters.dateFrom,
        filters.dateBefore,
        filters.window,
        filters.gridDegrees,
        filters.minSupport,
        filters.candidates,
      ],
    );
    return aggregates!;
  }

  // ---------------------------------------------------------------- reports

  /**
   * The tenant's cases in the report's range, newest first, read through a
   * cursor `batchRows` at a time (memory stays constant whatever the
   * report's size) — never classified ones (`NOT classified`: they stay out
   * of every export). Served by the (tenant, date) and (tenant, type, date)
   * indexes, both partial on NOT classified.
   */
  async *reportedCases(
    tenant: Tenant,
    range: ReportRange,
    batchRows: number,
    on: Connection,
  ): AsyncGenerator<ReportedCase> {
    const where = reportConditions(tenant, range);
    const rows = on.cursor(
      `SELECT id, external_id, source_type, type, subtype, work_status, date, target, client,
        analysts, duration_minutes, modality, descriptors, description, latitude, longitude,
        confidence_score, chance_baseline, verdict, outcome, location_found, verified_by, verified_at
      FROM history_cases WHERE ${where.sql} ORDER BY date DESC, id DESC`,
      where.parameters,
      batchRows,
    );
    for await (const row of rows as AsyncIterable<Record<string, unknown>>) {
      yield reportedCaseOf(row);
    }
  }

  /**
   * The report's cases counted per type (`per: 'type'`) or per UTC month
   * (`per: 'month'`, `YYYY-MM`), in order, with the mean chance baseline of
   * the verified ones (`defaultBaseline` where a case records none).
   */
  async reportTallies(
    tenant: Tenant,
    range: ReportRange,
    per: 'type' | 'month',
    defaultBaseline: number,
    on: Queryable = this.sql,
  ): Promise<ReportTally[]> {
    const where = reportConditions(tenant, range);
    const baseline = where.param(defaultBaseline);
    const group =
      per === 'type' ? 'type' : `to_char(date_trunc('month', date AT TIME ZONE 'UTC'), 'YYYY-MM')`;
    const rows = await on.rows<{
      grouped: string;
      cases: number;
      verified: number;
      hits: number;
      partials: number;
      misses: number;
      baseline: number | null;
    }>(
      `SELECT ${group} AS grouped, count(*)::int AS cases, count(verdict)::int AS verified,
        count(*) FILTER (WHERE verdict = 'hit')::int AS hits,
        count(*) FILTER (WHERE verdict = 'partial')::int AS partials,
        count(*) FILTER (WHERE verdict = 'miss')::int AS misses,
        avg(coalesce(chance_baseline, ${baseline}::float8)) FILTER (WHERE verdict IS NOT NULL) AS baseline
      FROM history_cases WHERE ${where.sql} GROUP BY 1 ORDER BY 1`,
      where.parameters,
    );
    return rows.map((row) => ({
      group: row.grouped,
      cases: row.cases,
      verified: row.verified,
      hits: row.hits,
      partials: row.partials,
      misses: row.misses,
      baseline: row.baseline,
    }));
  }

  /**
   * Work finished per UTC day and kind (the case's source: session,
   * analysis, dowsing query, import), completed and failed — every finished
   * piece of work is a case; classified ones are not counted.
   */
  async finishedPerDay(
    tenant: Tenant,
    range: ReportRange,
    on: Queryable = this.sql,
  ): Promise<FinishedDay[]> {
    const where = reportConditions(tenant, range);
    return on.rows<FinishedDay>(
      `SELECT to_char(date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, source_type AS kind,
        count(*)::int AS finished,
        count(*) FILTER (WHERE work_status = 'completed')::int AS completed,
        count(*) FILTER (WHERE work_status = 'failed')::int AS failed
      FROM history_cases WHERE ${where.sql} GROUP BY 1, 2 ORDER BY 1, 2`,
      where.parameters,
    );
  }

  // ---------------------------------------------------------------- imports

  /**
   * Takes the tenant's import lock until `tx` ends: false when another
   * import of the organisation and mode holds it (two at once would wait on
   * each other's rows, and their counts would depend on the race).
   */
  async claimImport(tx: Transaction, tenant: Tenant): Promise<boolean> {
    const [row] = await tx.rows<{ claimed: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS claimed',
      [`history-import:${tenant.organizationId}:${tenant.mode}`],
    );
    return row?.claimed === true;
  }

  /**
   * Writes imported cases in one statement, under a savepoint: new external
   * ids become cases, known ones (of this organisation and mode, through the
   * partial unique index) are rewritten; tells, by external id, whether each
   * was new. A statement that fails rolls back to the savepoint only, so the
   * import's transaction goes on (ImportBatch then writes row by row); the
   * error is thrown as it came.
   *
   * A re-import is the team's record again, so every field of the work is
   * replaced, absent ones cleared; the verified outcome is replaced only by
   * a row with a `verdict` — one recorded since through PUT
   * /v1/history/{case_id}/outcome survives re-importing the original records
   * — and `outcome` text likewise unless the row gives one. Classified,
   * date, target… stay the import's: the trigger-written cases of the
   * service's own work never carry an external id, so never conflict. Each
   * external id at most once: a statement cannot touch a row twice.
   */
  async upsertImported(
    tx: Transaction,
    tenant: Tenant,
    cases: readonly ImportedCase[],
  ): Promise<Map<string, boolean>> {
    await tx.query('SAVEPOINT history_import');
    let rows: { external_id: string; inserted: boolean }[];
    try {
      rows = await tx.rows(UPSERT_IMPORTED, [
        tenant.organizationId,
        tenant.mode,
        JSON.stringify(cases.map(importedRecord)),
      ]);
    } catch (error) {
      // Released too, so a refused batch's rows written one by one next do not nest under it.
      await tx
        .statements('ROLLBACK TO SAVEPOINT history_import; RELEASE SAVEPOINT history_import')
        .catch(() => undefined);
      throw error;
    }
    await tx.query('RELEASE SAVEPOINT history_import');
    return new Map(rows.map((row) => [row.external_id, row.inserted]));
  }

  // ---------------------------------------------------------------- seeding

  /**
   * One chunk of a scale-test history (`npm run db:seed-history`): cases
   * numbered `from + 1` .. `to` as imported history, source_type `import`,
   * external_id `seed-<n>`, by one INSERT … SELECT FROM generate_series. A
   * case already there (the same tenant and external id) is left as it is
   * (ON CONFLICT DO NOTHING), so seeding again adds only what is missing.
   * The chunk starts from its own setseed, so case n has the same content in
   * every run (its id, from history_case_id(), and its date, which spreads
   * the run's cases over the years up to now, differ). Returns how many
   * cases it inserted.
   */
  async seed(tx: Transaction, tenant: Tenant, chunk: HistorySeedChunk): Promise<number> {
    await tx.query('SELECT setseed($1)', [chunk.seed]);
    const { rowCount } = await tx.query(SEED_CASES, [
      tenant.organizationId,
      tenant.mode,
      chunk.from,
      chunk.to,
      chunk.last,
      chunk.nouns,
      chunk.adjectives,
      chunk.descriptionWords,
      chunk.descriptors,
      chunk.cities.latitudes,
      chunk.cities.longitudes,
      chunk.cities.sigmasKm,
      chunk.cities.lowerBounds,
    ]);
    return rowCount ?? 0;
  }

  /** Refreshes the table's statistics and visibility map after a bulk load (seeding). */
  async vacuumAcrossTenants(): Promise<void> {
    await this.sql.query('VACUUM ANALYZE history_cases');
  }
}

/** A verified outcome's values, in VERIFIED_OUTCOME_COLUMNS' order. */
function verifiedOutcomeValues(outcome: VerifiedOutcome): unknown[] {
  return [
    outcome.verdict,
    outcome.locationFound,
    outcome.coordinates?.latitude ?? null,
    outcome.coordinates?.longitude ?? null,
    outcome.verification,
    outcome.independentVerification,
    outcome.accuracyConfirmed,
    outcome.verifiedBy,
    outcome.verifiedAt,
  ];
}

function runOn(on: Queryable) {
  return (text: string, parameters: unknown[]) => on.rows(text, parameters);
}

// ---------------------------------------------------------------- search conditions

/** The case's location: where the target really was once verified, else where the work pointed. */
const CASE_LATITUDE = 'coalesce(true_latitude, latitude)';
const CASE_LONGITUDE = 'coalesce(true_longitude, longitude)';

/** The columns a search's location condition reads, for walks that apply it outside their scan. */
const LOCATED_COLUMNS = 'earth, latitude, longitude, true_latitude, true_longitude';

/** The text query of a search, bound once: `document @@ (…)`. */
function textQuerySql(where: SqlConditions, text: string): string {
  return `websearch_to_tsquery('english', ${where.param(text)})`;
}

/**
 * The conditions of a search, the tenant's first. Classified cases are never
 * searched (their partial indexes leave them out, too). Each filter is
 * written so its index serves it: the text by the GIN over `document`, a
 * circle or a box by the GiST over `earth` (the cube around the circle, then
 * the exact haversine distance), the type and dates by the b-trees. With
 * `location: false` the circle and box are left out, for locationCondition
 * to apply on its own.
 */
function searchConditions(
  tenant: Tenant,
  filters: CaseSearchFilters,
  { location = true }: { location?: boolean } = {},
): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(tenant.organizationId)}`);
  where.and(`mode = ${where.param(tenant.mode)}`);
  where.and('NOT classified');
  if (filters.text !== null) where.and(`document @@ ${textQuerySql(where, filters.text)}`);
  if (filters.type !== null) where.and(`type = ${where.param(filters.type)}`);
  if (filters.dateFrom !== null) where.and(`date >= ${where.param(filters.dateFrom)}`);
  if (filters.dateBefore !== null) where.and(`date < ${where.param(filters.dateBefore)}`);
  if (filters.verified !== null) {
    where.and(filters.verified ? 'verdict IS NOT NULL' : 'verdict IS NULL');
  }
  if (location && hasLocation(filters)) where.and(locationCondition(where, filters));
  return where;
}

/** The circle and box of a search as one condition, its values bound in `where`. */
function locationCondition(where: SqlConditions, filters: CaseSearchFilters): string {
  const clauses: string[] = [];
  if (filters.circle !== null) clauses.push(...within(where, filters.circle));
  if (filters.box !== null) {
    const { south, west, north, east } = filters.box;
    const around = circleAroundBox(filters.box);
    clauses.push(around === null ? 'earth IS NOT NULL' : within(where, around, false)[0]!);
    clauses.push(`${CASE_LATITUDE} BETWEEN ${where.param(south)} AND ${where.param(north)}`);
    clauses.push(
      west <= east
        ? `${CASE_LONGITUDE} BETWEEN ${where.param(west)} AND ${where.param(east)}`
        : `(${CASE_LONGITUDE} >= ${where.param(west)} OR ${CASE_LONGITUDE} <= ${where.param(east)})`,
    );
  }
  return clauses.map((clause) => `(${clause})`).join(' AND ');
}

/** Cases within the circle: the cube around it for the index, then (when `exact`) the distance. */
function within(where: SqlConditions, circle: SearchCircle, exact = true): string[] {
  const latitude = where.param(circle.latitude);
  const longitude = where.param(circle.longitude);
  const meters = circle.radiusKm * 1000;
  const clauses = [
    `earth <@ cube_enlarge(history_earth_point(${latitude}::float8, ${longitude}::float8), ${where.param(chordMeters(meters))}, 3)`,
  ];
  if (exact) {
    clauses.push(
      `${haversineSql(CASE_LATITUDE, CASE_LONGITUDE, `${latitude}::float8`, `${longitude}::float8`)} <= ${where.param(meters)}`,
    );
  }
  return clauses;
}

/** Cases older than the case `id` (of the tenant: another tenant's id names no case, and so no page). */
function afterCase(where: SqlConditions, tenant: Tenant, id: string): string {
  return `(date, id) < (SELECT date, id FROM history_cases WHERE id = ${where.param(id)}
            AND organization_id = ${where.param(tenant.organizationId)} AND mode = ${where.param(tenant.mode)})`;
}

// ---------------------------------------------------------------- reports

function reportConditions(tenant: Tenant, range: ReportRange): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(tenant.organizationId)}`);
  where.and(`mode = ${where.param(tenant.mode)}`);
  where.and('NOT classified');
  if (range.type !== null) where.and(`type = ${where.param(range.type)}`);
  if (range.dateFrom !== null) where.and(`date >= ${where.param(range.dateFrom)}`);
  if (range.dateTo !== null) where.and(`date <= ${where.param(range.dateTo)}`);
  return where;
}

function reportedCaseOf(row: Record<string, unknown>): ReportedCase {
  return {
    id: row.id as string,
    externalId: row.external_id as string | null,
    sourceType: row.source_type as ReportedCase['sourceType'],
    type: row.type as ReportedCase['type'],
    subtype: row.subtype as string | null,
    workStatus: row.work_status as ReportedCase['workStatus'],
    date: row.date as Date,
    target: row.target as string,
    client: row.client as string | null,
    analysts: row.analysts as string[],
    durationMinutes: row.duration_minutes as number | null,
    modality: row.modality as string | null,
    descriptors: row.descriptors as string[],
    description: row.description as string | null,
    latitude: row.latitude as number | null,
    longitude: row.longitude as number | null,
    confidenceScore: row.confidence_score as number | null,
    chanceBaseline: row.chance_baseline as number | null,
    verdict: row.verdict as ReportedCase['verdict'],
    outcome: row.outcome as string | null,
    locationFound: row.location_found as boolean | null,
    verifiedBy: row.verified_by as string | null,
    verifiedAt: row.verified_at as Date | null,
  };
}

// ---------------------------------------------------------------- imports

const RECORD_COLUMNS = `id uuid, external_id text, type text, subtype text, classified boolean,
  date timestamptz, target text, client text, analysts text[], duration_minutes integer,
  modality text, phases text[], descriptors text[], description text, latitude float8,
  longitude float8, confidence_score float8, outcome text, verdict text, location_found boolean,
  true_latitude float8, true_longitude float8, verification text,
  independent_verification boolean, accuracy_confirmed boolean, verified_by text,
  verified_at timestamptz`;

/** See HistoryCasesRepository#upsertImported. */
const UPSERT_IMPORTED = `
  INSERT INTO history_cases AS c (organization_id, mode, id, source_type, external_id, type,
         subtype, work_status, classified, date, target, client, analysts, duration_minutes,
         modality, phases, descriptors, description, latitude, longitude, confidence_score,
         outcome, ${VERIFIED_OUTCOME_COLUMNS.join(', ')})
  SELECT $1, $2, r.id, 'import', r.external_id, r.type, r.subtype, 'completed', r.classified,
         r.date, r.target, r.client, r.analysts, r.duration_minutes, r.modality, r.phases,
         r.descriptors, r.description, r.latitude, r.longitude, r.confidence_score, r.outcome,
         ${VERIFIED_OUTCOME_COLUMNS.map((column) => `r.${column}`).join(', ')}
    FROM jsonb_to_recordset($3::jsonb) AS r(${RECORD_COLUMNS})
  ON CONFLICT (organization_id, mode, external_id) WHERE external_id IS NOT NULL DO UPDATE SET
         type = EXCLUDED.type, subtype = EXCLUDED.subtype, classified = EXCLUDED.classified,
         date = EXCLUDED.date, target = EXCLUDED.target, client = EXCLUDED.client,
         analysts = EXCLUDED.analysts, duration_minutes = EXCLUDED.duration_minutes,
         modality = EXCLUDED.modality, phases = EXCLUDED.phases,
         descriptors = EXCLUDED.descriptors, description = EXCLUDED.description,
         latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude,
         confidence_score = EXCLUDED.confidence_score,
         outcome = coalesce(EXCLUDED.outcome, CASE WHEN EXCLUDED.verdict IS NULL THEN c.outcome END),
         ${VERIFIED_OUTCOME_COLUMNS.map(
           (column) =>
             `${column} = CASE WHEN EXCLUDED.verdict IS NULL THEN c.${column} ELSE EXCLUDED.${column} END`,
         ).join(',\n         ')},
         updated_at = now()
  RETURNING c.external_id, (c.xmax = 0) AS inserted`;

/** An imported case as the statement reads it (one JSON record of jsonb_to_recordset). */
function importedRecord(row: ImportedCase): Record<string, unknown> {
  const verified = row.verified;
  return {
    id: newUuid(),
    external_id: row.externalId,
    type: row.type,
    subtype: importedSubtype(row.type, row.modality),
    classified: row.classified,
    date: row.date.toISOString(),
    target: row.target,
    client: row.client,
    analysts: row.analysts,
    duration_minutes: row.durationMinutes,
    modality: row.modality,
    phases: row.phases,
    descriptors: row.descriptors,
    description: row.description,
    latitude: row.location?.latitude ?? null,
    longitude: row.location?.longitude ?? null,
    confidence_score: row.confidenceScore,
    outcome: row.outcome,
    verdict: verified?.verdict ?? null,
    location_found: verified?.locationFound ?? null,
    true_latitude: verified?.coordinates?.latitude ?? null,
    true_longitude: verified?.coordinates?.longitude ?? null,
    verification: verified?.verification ?? null,
    independent_verification: verified?.independentVerification ?? false,
    accuracy_confirmed: verified?.accuracyConfirmed ?? false,
    verified_by: verified?.verifiedBy ?? null,
    verified_at: verified?.verifiedAt.toISOString() ?? null,
  };
}

// ---------------------------------------------------------------- seeding

/** The span a seeded history's dates cover, ending now. */
const SEED_YEARS = 10;

/** Shares of the seeded cases (the rest of each draw falls to the last option). */
const SEED_SHARES = {
  located: 0.9,
  completed: 0.95,
  /** Of completed cases: about 20 % of all cases. */
  verified: 0.21,
  classified: 0.03,
};

/** A Zipf-like draw from a text[] (rank k with probability ≈ ln((k+1)/k) / ln(n+1)). */
const zipf = (array: string) =>
  `(${array})[least(cardinality(${array}), floor(exp(random() * ln(cardinality(${array}) + 1)))::int)]`;

/** One of the options, uniformly. */
const oneOf = (...options: string[]) =>
  `(ARRAY[${options.map((o) => `'${o}'`).join(', ')}])[1 + floor(random() * ${options.length})::int]`;

/** A standard normal draw pair's radius (Box–Muller); the angle comes from its own random(). */
const GAUSS_RADIUS = 'sqrt(-2 * ln(1 - random()))';

/** A longitude brought back into [-180, 180). */
const wrapLongitude = (x: string) => `(${x}) - 360 * floor(((${x}) + 180) / 360)`;

/**
 * $1 organisation, $2 mode, $3/$4 the numbers (exclusive/inclusive) of this
 * chunk, $5 the run's last number (dates grow with n, ten years up to now, so
 * the table is as correlated with time as one filled over the years), $6
 * nouns, $7 adjectives, $8 description words, $9 descriptor terms (each in
 * rank order), $10–$13 the cities: latitude, longitude, σ (km), cumulative
 * share.
 *
 * Types: 40 % remote viewing, 25 % dowsing, 25 % analysis, 10 % automatic
 * writing, each with its subtype, modality and a target worded as its kind
 * of work words one (a place near a place, a question, a photograph, a
 * message); descriptions of 3–8 "adjective noun word" phrases; 2–6
 * descriptors drawn from the engines' controlled list (1–6 distinct).
 * 90 % are located around a city (Gaussian), 95 %
 * completed, about 20 % verified (of those 30 % hits, 30 % partial, 40 %
 * misses; the true place 0.3, 3 or 30 km (σ) from the case's), 3 %
 * classified.
 *
 * No ORDER BY: generate_series already yields the cases in order, and a sort
 * would make PostgreSQL draw the select list's own random() calls (analysts,
 * descriptors, description, …) after every row's draws of the CTEs, so case
 * n's content would depend on how many cases the chunk holds, and a second
 * run with a larger --count would add cases unlike those of one run.
 * Without it each row is drawn whole before the next.
 */
const SEED_CASES = `
  WITH draws AS (
    SELECT n, random() AS kind, random() AS status_draw, random() AS verified_draw,
           random() AS classified_draw, random() AS located_draw, random() AS verdict_draw,
           width_bucket(random(), $13::float8[]) AS city,
           ${GAUSS_RADIUS} AS radius, 2 * pi() * random() AS angle,
           ${GAUSS_RADIUS} AS true_radius, 2 * pi() * random() AS true_angle,
           ${zipf('$7::text[]')} AS adjective, ${zipf('$6::text[]')} AS noun,
           ${zipf('$6::text[]')} AS place, ${zipf('$7::text[]')} AS other_adjective,
           ${zipf('$6::text[]')} AS other_noun,
           3 + floor(random() * 6)::int AS phrases, 2 + floor(random() * 5)::int AS descriptor_count,
           1 + floor(random() * 3)::int AS analyst_count,
           now() - interval '${SEED_YEARS * 365} days' * (1 - (n - random()) / $5::int) AS date
      FROM generate_series($3::int + 1, $4::int) AS n
  ), typed AS (
    SELECT d.*,
           CASE WHEN kind < 0.40 THEN 'remote_viewing' WHEN kind < 0.65 THEN 'dowsing'
                WHEN kind < 0.90 THEN 'analysis' ELSE 'automatic_writing' END AS type,
           CASE WHEN status_draw < ${SEED_SHARES.completed} THEN 'completed' ELSE 'failed' END AS work_status,
           CASE WHEN located_draw < ${SEED_SHARES.located} THEN ($10::float8[])[city] END AS city_latitude,
           CASE WHEN located_draw < ${SEED_SHARES.located} THEN ($11::float8[])[city] END AS city_longitude,
           ($12::float8[])[city] AS sigma_km
      FROM draws d
  ), placed AS (
    SELECT t.*,
           -- greatest and least skip nulls: an unlocated case must stay null, not become a pole
           CASE WHEN city_latitude IS NOT NULL THEN
             greatest(-90, least(90, city_latitude + sigma_km / 111.32 * radius * sin(angle))) END AS latitude,
           ${wrapLongitude('city_longitude + sigma_km / (111.32 * cos(radians(city_latitude))) * radius * cos(angle)')} AS longitude,
           CASE WHEN work_status = 'completed' AND verified_draw < ${SEED_SHARES.verified}
                THEN CASE WHEN verdict_draw < 0.3 THEN 'hit' WHEN verdict_draw < 0.6 THEN 'partial' ELSE 'miss' END
           END AS verdict,
           CASE type WHEN 'dowsing' THEN ${oneOf('location', 'location', 'information', 'yes_no')}
                     WHEN 'analysis' THEN ${oneOf('comprehensive', 'quick_scan', 'deep_dive')}
                     ELSE ${oneOf('visual', 'kinesthetic', 'auditory')} END AS subtype
      FROM typed t
  ), outcomes AS (
    SELECT p.*,
           CASE verdict WHEN 'hit' THEN 0.3 WHEN 'partial' THEN 3 ELSE 30 END AS true_sigma_km
      FROM placed p
  )
  INSERT INTO history_cases (organization_id, mode, id, source_type, external_id, type, subtype,
         work_status, classified, date, target, client, analysts, duration_minutes, modality,
         phases, descriptors, description, latitude, longitude, confidence_score, chance_baseline,
         verdict, outcome, location_found, true_latitude, true_longitude, verification,
         independent_verification, accuracy_confirmed, verified_by, verified_at)
  SELECT $1::uuid, $2::text, history_case_id(), 'import', 'seed-' || n, type, subtype,
         work_status, classified_draw < ${SEED_SHARES.classified}, date,
         CASE type
           WHEN 'remote_viewing' THEN initcap(adjective) || ' ' || noun || ' near the ' || place
           WHEN 'dowsing' THEN 'Where is the ' || adjective || ' ' || noun || '?'
           WHEN 'analysis' THEN 'Photograph of the ' || adjective || ' ' || noun
           ELSE 'Message about the ' || adjective || ' ' || noun || ' by the ' || place
         END,
         CASE WHEN random() < 0.7 THEN 'Client ' || (1 + floor(random() * 40)::int) END,
         ARRAY(SELECT 'analyst_' || lpad((1 + floor(random() * 60)::int)::text, 3, '0')
                 FROM generate_series(1, o.analyst_count)),
         10 + floor(random() * 110)::int,
         CASE type WHEN 'dowsing' THEN ${oneOf('radar', 'pendulum', 'divining_rod')} ELSE subtype END,
         CASE work_status WHEN 'completed' THEN ARRAY['data_collection', 'analysis', 'validation']
                          ELSE ARRAY['data_collection'] END,
         ARRAY(SELECT DISTINCT ${zipf('$9::text[]')} FROM generate_series(1, o.descriptor_count)),
         CASE work_status
           WHEN 'completed' THEN (SELECT string_agg(${zipf('$7::text[]')} || ' ' || ${zipf('$6::text[]')}
                                                     || ' ' || ${zipf('$8::text[]')}, ', ')
                                    FROM generate_series(1, o.phrases))
           ELSE 'Failed: ' || ${oneOf('engine_failure', 'timeout', 'analyst_unavailable')}
         END,
         latitude, longitude,
         CASE WHEN work_status = 'completed' THEN round(((random() + random()) / 2)::numeric, 4)::float8 END,
         CASE WHEN type IN ('remote_viewing', 'automatic_writing') THEN 0.25
              WHEN subtype = 'yes_no' THEN 0.5 END,
         verdict,
         CASE verdict
           WHEN 'hit' THEN 'Confirmed: the ' || adjective || ' ' || noun || ' found as described'
           WHEN 'partial' THEN 'Partly right: the ' || noun || ' found, not the ' || other_noun
           WHEN 'miss' THEN 'Not found: the target was the ' || other_adjective || ' ' || other_noun
         END,
         CASE verdict WHEN 'hit' THEN true WHEN 'partial' THEN random() < 0.5 WHEN 'miss' THEN false END,
         CASE WHEN verdict IS NOT NULL AND latitude IS NOT NULL THEN
           greatest(-90, least(90, latitude + true_sigma_km / 111.32 * true_radius * sin(true_angle))) END,
         CASE WHEN verdict IS NOT NULL AND latitude IS NOT NULL THEN
           ${wrapLongitude('longitude + true_sigma_km / (111.32 * cos(radians(latitude))) * true_radius * cos(true_angle)')} END,
         CASE WHEN verdict IS NOT NULL THEN
           ${oneOf('Site visit', 'Photograph of the site', 'Client confirmation', 'Public record', 'Independent judge')} END,
         verdict IS NOT NULL AND random() < 0.4,
         coalesce(verdict = 'hit', false) AND random() < 0.8,
         CASE WHEN verdict IS NOT NULL THEN 'verifier_' || lpad((1 + floor(random() * 25)::int)::text, 2, '0') END,
         CASE WHEN verdict IS NOT NULL THEN least(now(), date + random() * interval '90 days') END
    FROM outcomes o
  ON CONFLICT (organization_id, mode, external_id) WHERE external_id IS NOT NULL DO NOTHING`;
