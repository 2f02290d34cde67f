import type { AnalysisFilters, DowsingFilters, SessionFilters } from '@sas/sdk';

// The lists' filters as they stand in the address (`/sessions?type=dowsing&per_page=10`):
// anything unknown or malformed is dropped rather than sent to the API.

const oneOf =
  <T extends string>(values: readonly T[]) =>
  (value: unknown): T | undefined =>
    typeof value === 'string' && (values as readonly string[]).includes(value)
      ? (value as T)
      : undefined;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

const PER_PAGE_VALUES = [10, 25, 50, 100];
const perPage = (value: unknown): number | undefined =>
  PER_PAGE_VALUES.includes(Number(value)) ? Number(value) : undefined;

const percentage = (value: unknown): number | undefined => {
  if (value === undefined || value === '' || value === null) return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 && number <= 100 ? number : undefined;
};

const date = (value: unknown): string | undefined =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;

/** Keys whose value is undefined are left out, so the address stays short. */
function defined<T extends object>(search: T): T {
  return Object.fromEntries(Object.entries(search).filter(([, value]) => value !== undefined)) as T;
}

export const SESSION_TYPES = ['remote_viewing', 'dowsing', 'automatic_writing'] as const;
export const SESSION_STATUSES = ['initiated', 'in_progress', 'completed', 'failed'] as const;

export interface SessionSearch {
  status?: SessionFilters['status'];
  type?: SessionFilters['type'];
  created_after?: string;
  /** Confidence at least this percentage. */
  min_confidence?: number;
  analyst_id?: string;
  per_page?: number;
}

export function sessionSearch(search: Record<string, unknown>): SessionSearch {
  return defined({
    status: oneOf(SESSION_STATUSES)(search.status),
    type: oneOf(SESSION_TYPES)(search.type),
    created_after: date(search.created_after),
    min_confidence: percentage(search.min_confidence),
    analyst_id: text(search.analyst_id),
    per_page: perPage(search.per_page),
  });
}

export const TARGET_TYPES = ['location', 'person', 'object', 'event'] as const;
export const ANALYSIS_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;

export interface AnalysisSearch {
  status?: AnalysisFilters['status'];
  target_type?: AnalysisFilters['target_type'];
  priority?: AnalysisFilters['priority'];
  per_page?: number;
}

export function analysisSearch(search: Record<string, unknown>): AnalysisSearch {
  return defined({
    status: oneOf(ANALYSIS_STATUSES)(search.status),
    target_type: oneOf(TARGET_TYPES)(search.target_type),
    priority: oneOf(PRIORITIES)(search.priority),
    per_page: perPage(search.per_page),
  });
}

export const QUERY_TYPES = ['yes_no', 'information', 'location'] as const;
export const QUERY_STATUSES = ['pending', 'completed', 'failed'] as const;
export const VARIANTS = [
  'query',
  'multi_point',
  'energy_map',
  'depth_analysis',
  'material_identification',
  'chart_analysis',
  'location_finding',
  'energy_detection',
] as const;

export interface DowsingSearch {
  query_type?: DowsingFilters['query_type'];
  status?: DowsingFilters['status'];
  variant?: DowsingFilters['variant'];
  per_page?: number;
}

export function dowsingSearch(search: Record<string, unknown>): DowsingSearch {
  return defined({
    query_type: oneOf(QUERY_TYPES)(search.query_type),
    status: oneOf(QUERY_STATUSES)(search.status),
    variant: oneOf(VARIANTS)(search.variant),
    per_page: perPage(search.per_page),
  });
}
