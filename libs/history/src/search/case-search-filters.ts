import type { CaseType } from '../history-case.js';

/** A circle on the mean-radius sphere: cases whose location lies within `radiusKm` (great-circle). */
export interface SearchCircle {
  latitude: number;
  longitude: number;
  radiusKm: number;
}

/** A latitude/longitude box; `west > east` crosses the antimeridian. */
export interface SearchBox {
  south: number;
  west: number;
  north: number;
  east: number;
}

/**
 * What a history search asks for; every filter is optional and they all
 * apply together. A case's location is where its target really was once
 * verified, else where the work pointed.
 */
export interface CaseSearchFilters {
  /** Web-search syntax (PostgreSQL's websearch_to_tsquery): "quoted phrases", OR, -word. */
  text: string | null;
  type: CaseType | null;
  /** Cases dated at or after this. */
  dateFrom: Date | null;
  /** Cases dated before this (the HTTP layer turns an inclusive date_to into it). */
  dateBefore: Date | null;
  circle: SearchCircle | null;
  box: SearchBox | null;
  /** true: verified cases only; false: unverified only. */
  verified: boolean | null;
}

export const NO_FILTERS: CaseSearchFilters = {
  text: null,
  type: null,
  dateFrom: null,
  dateBefore: null,
  circle: null,
  box: null,
  verified: null,
};

/** Whether a search names an area (a circle or a box). */
export function hasLocation(filters: CaseSearchFilters): boolean {
  return filters.circle !== null || filters.box !== null;
}
