import { AppError, toPublicId } from '#common';
import {
  locationOf,
  MATCH_END,
  MATCH_START,
  type CaseHit,
  type CaseSearchFilters,
  type HistoryCase,
  type SimilarCase,
} from '#history';
import type { HistorySearchFiltersDto } from './history-search-filters.dto.js';
import type { HistorySearchItemDto, SimilarCaseDto } from './history-search-results.dto.js';

/** Pieces of the history's requests and representation that both versions share. */

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
/** Half the Earth's circumference on the mean sphere: every point is within it. */
const MAX_RADIUS_KM = 20_015;

/** The search filters of a query, checked beyond what the DTO's rules can see. */
export function filtersOf(query: HistorySearchFiltersDto): CaseSearchFilters {
  const dateFrom = query.date_from === undefined ? null : new Date(query.date_from);
  const dateTo = query.date_to === undefined ? null : new Date(query.date_to);
  if (dateFrom && dateTo && dateTo < dateFrom) {
    throw AppError.invalid('date_to', 'must not be before date_from', query.date_from);
  }
  const text = query.q?.trim() ?? null;
  if (text === '') throw AppError.invalid('q', 'must contain a word to search for');
  return {
    text,
    type: query.type ?? null,
    dateFrom,
    // Inclusive: a date means its whole day.
    dateBefore:
      dateTo === null
        ? null
        : new Date(dateTo.getTime() + (DATE_ONLY.test(query.date_to!) ? DAY_MS : 1)),
    circle: query.location === undefined ? null : circleOf(query.location),
    box: query.bbox === undefined ? null : boxOf(query.bbox),
    verified: query.outcome === undefined ? null : query.outcome === 'verified',
  };
}

function circleOf(location: string): CaseSearchFilters['circle'] {
  const [latitude, longitude, radiusKm] = location.split(',').map(Number) as [
    number,
    number,
    number,
  ];
  if (Math.abs(latitude) > 90)
    throw AppError.invalid('location', 'latitude must be between -90 and 90');
  if (Math.abs(longitude) > 180) {
    throw AppError.invalid('location', 'longitude must be between -180 and 180');
  }
  if (!(radiusKm > 0) || radiusKm > MAX_RADIUS_KM) {
    throw AppError.invalid(
      'location',
      `radius_km must be more than 0 and at most ${MAX_RADIUS_KM}`,
    );
  }
  return { latitude, longitude, radiusKm };
}

function boxOf(bbox: string): CaseSearchFilters['box'] {
  const [south, west, north, east] = bbox.split(',').map(Number) as [
    number,
    number,
    number,
    number,
  ];
  for (const [name, value, limit] of [
    ['south', south, 90],
    ['north', north, 90],
    ['west', west, 180],
    ['east', east, 180],
  ] as const) {
    if (Math.abs(value) > limit) {
      throw AppError.invalid('bbox', `${name} must be between -${limit} and ${limit}`);
    }
  }
  if (south > north) throw AppError.invalid('bbox', 'south must not be north of north');
  return { south, west, north, east };
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** A snippet safe to insert as HTML: the case's text escaped, the matches in <mark>. */
export function markSnippet(snippet: string): string {
  return snippet
    .replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)
    .replaceAll(MATCH_START, '<mark>')
    .replaceAll(MATCH_END, '</mark>');
}

export function toSearchItem(record: HistoryCase): HistorySearchItemDto {
  return {
    id: toPublicId('history', record.id),
    type: record.type,
    date: record.date.toISOString(),
    target: record.target,
    outcome: record.outcome,
    confidence_score: record.confidenceScore,
    location: locationOf(record),
    verdict: record.verdict,
  };
}

export function toSearchHit(hit: CaseHit): HistorySearchItemDto {
  return {
    ...toSearchItem(hit.record),
    ...(hit.snippet !== null && { snippet: markSnippet(hit.snippet) }),
    ...(hit.relevance !== null && { relevance: round(hit.relevance) }),
  };
}

export function toSimilarCase(similar: SimilarCase): SimilarCaseDto {
  const { text, descriptors, distance, time } = similar.components;
  return {
    ...toSearchItem(similar.record),
    similarity: round(similar.similarity),
    similarity_components: {
      text: roundOrNull(text),
      descriptors: roundOrNull(descriptors),
      distance: roundOrNull(distance),
      time: roundOrNull(time),
    },
    distance_km: similar.distanceKm === null ? null : Math.round(similar.distanceKm * 1000) / 1000,
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function roundOrNull(value: number | null): number | null {
  return value === null ? null : round(value);
}
