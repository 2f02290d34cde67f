import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import {
  countMatching,
  haversineSql,
  plannedRows,
  Sql,
  SqlConditions,
  type Queryable,
} from '#database';
import type { HistoryCase } from '../history-case.js';
import { CASE_ROWS, type HistoryCaseRow } from '../history-rows.js';
import { chordMeters, circleAroundBox } from './case-geometry.js';
import { hasLocation, type CaseSearchFilters, type SearchCircle } from './case-search-filters.js';

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

/**
 * The statements of a case search on `history_cases` (CaseSearchService
 * chooses among them): a search's matches newest first, their count or the
 * planner's estimate, a sample of an area, and the rows of a page's cases
 * with their snippets. Classified cases are never searched; every statement
 * on the table names the tenant.
 */
@Injectable()
export class CaseSearchRepository {
  constructor(private readonly sql: Sql) {}

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
      `SELECT ${CASE_ROWS.selectList}, ${snippet} AS snippet FROM history_cases
        WHERE id = ANY($1::uuid[]) AND organization_id = $2 AND mode = $3`,
      parameters,
    );
    return rows.map((row) => ({ record: CASE_ROWS.fromRow(row), snippet: row.snippet }));
  }
}

function runOn(on: Queryable) {
  return (text: string, parameters: unknown[]) => on.rows(text, parameters);
}

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
