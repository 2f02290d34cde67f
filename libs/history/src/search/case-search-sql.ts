import type { Tenant } from '#common';
import { haversineSql, SqlConditions } from '#database';
import { chordMeters, circleAroundBox } from './case-geometry.js';
import type { CaseSearchFilters, SearchCircle } from './case-search-filters.js';

/** The case's location: where the target really was once verified, else where the work pointed. */
export const CASE_LATITUDE = 'coalesce(true_latitude, latitude)';
export const CASE_LONGITUDE = 'coalesce(true_longitude, longitude)';

/** The text query of a search, bound once: `document @@ (…)`. */
export function textQuerySql(where: SqlConditions, text: string): string {
  return `websearch_to_tsquery('english', ${where.param(text)})`;
}

/** The columns a search's location condition reads, for walks that apply it outside their scan. */
export const LOCATED_COLUMNS = 'earth, latitude, longitude, true_latitude, true_longitude';

export function hasLocation(filters: CaseSearchFilters): boolean {
  return filters.circle !== null || filters.box !== null;
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
export function searchConditions(
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
export function locationCondition(where: SqlConditions, filters: CaseSearchFilters): string {
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
