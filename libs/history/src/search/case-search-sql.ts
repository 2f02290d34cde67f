import type { Tenant } from '#common';
import { SqlConditions } from '#database';
import { chordMeters, circleAroundBox, haversineSql } from './case-geometry.js';
import type { CaseSearchFilters, SearchCircle } from './case-search-filters.js';

/** The case's location: where the target really was once verified, else where the work pointed. */
export const CASE_LATITUDE = 'coalesce(true_latitude, latitude)';
export const CASE_LONGITUDE = 'coalesce(true_longitude, longitude)';

/** The text query of a search, bound once: `document @@ (…)`. */
export function textQuerySql(where: SqlConditions, text: string): string {
  return `websearch_to_tsquery('english', ${where.param(text)})`;
}

/**
 * The conditions of a search, the tenant's first. Classified cases are never
 * searched (their partial indexes leave them out, too). Each filter is
 * written so its index serves it: the text by the GIN over `document`, a
 * circle or a box by the GiST over `earth` (the cube around the circle, then
 * the exact haversine distance), the type and dates by the b-trees.
 */
export function searchConditions(tenant: Tenant, filters: CaseSearchFilters): SqlConditions {
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
  if (filters.circle !== null) {
    within(where, filters.circle);
  }
  if (filters.box !== null) {
    const { south, west, north, east } = filters.box;
    const around = circleAroundBox(filters.box);
    if (around !== null) within(where, around, false);
    else where.and('earth IS NOT NULL');
    where.and(`${CASE_LATITUDE} BETWEEN ${where.param(south)} AND ${where.param(north)}`);
    where.and(
      west <= east
        ? `${CASE_LONGITUDE} BETWEEN ${where.param(west)} AND ${where.param(east)}`
        : `(${CASE_LONGITUDE} >= ${where.param(west)} OR ${CASE_LONGITUDE} <= ${where.param(east)})`,
    );
  }
  return where;
}

/** Cases within the circle: the cube around it for the index, then (when `exact`) the distance. */
function within(where: SqlConditions, circle: SearchCircle, exact = true): void {
  const latitude = where.param(circle.latitude);
  const longitude = where.param(circle.longitude);
  const meters = circle.radiusKm * 1000;
  where.and(
    `earth <@ cube_enlarge(history_earth_point(${latitude}::float8, ${longitude}::float8), ${where.param(chordMeters(meters))}, 3)`,
  );
  if (exact) {
    where.and(
      `${haversineSql(CASE_LATITUDE, CASE_LONGITUDE, `${latitude}::float8`, `${longitude}::float8`)} <= ${where.param(meters)}`,
    );
  }
}
