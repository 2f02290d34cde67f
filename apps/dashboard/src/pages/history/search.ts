import { type CaseType, isCaseType } from './labels';

/** The search's filters as they stand in the page's URL (`/history?q=…&type=…`). */
export interface HistorySearch {
  q?: string;
  type?: CaseType;
  date_from?: string;
  date_to?: string;
  outcome?: 'verified' | 'unverified';
  location?: string;
  bbox?: string;
}

const text = (value: unknown) =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** Reads the URL's search parameters, keeping only the filters the API knows. */
export function validateHistorySearch(search: Record<string, unknown>): HistorySearch {
  const outcome = search.outcome;
  return {
    q: text(search.q),
    type: isCaseType(search.type) ? search.type : undefined,
    date_from: text(search.date_from),
    date_to: text(search.date_to),
    outcome: outcome === 'verified' || outcome === 'unverified' ? outcome : undefined,
    location: text(search.location),
    bbox: text(search.bbox),
  };
}
