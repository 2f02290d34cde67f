import type { InputHTMLAttributes } from 'react';

// The lists' filters: how each is offered, how it stands in the address
// (`/sessions?type=dowsing&per_page=10`) and what it asks of the API. Loaded with
// the routes, which check the address with them: anything unknown or malformed is
// dropped rather than sent to the API.

/** A list's filters as they stand in the address. */
export type WorkSearch = Partial<Record<string, string | number>>;

type Read = (value: unknown) => string | number | undefined;

interface FilterOf<Control extends string> {
  /** Its name in the address. */
  key: string;
  label: string;
  control: Control;
  read: Read;
  /** The API's filter for a value, when it is not the value under the same name. */
  api?: (value: string | number) => Record<string, string | number>;
}

/**
 * A select applies at once; a date too; a typed filter once it is complete
 * (Enter, or leaving the field), not on every key.
 */
export type WorkFilter =
  | (FilterOf<'select'> & { values: readonly string[]; any: string })
  | FilterOf<'date'>
  | (FilterOf<'typed'> & {
      input: Pick<
        InputHTMLAttributes<HTMLInputElement>,
        'type' | 'min' | 'max' | 'step' | 'placeholder'
      >;
    });

const oneOf =
  (values: readonly string[]) =>
  (value: unknown): string | undefined =>
    typeof value === 'string' && values.includes(value) ? value : undefined;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

export const PER_PAGE = [10, 25, 50, 100] as const;
const perPage = (value: unknown): number | undefined =>
  (PER_PAGE as readonly number[]).includes(Number(value)) ? Number(value) : undefined;

const percentage = (value: unknown): number | undefined => {
  if (value === undefined || value === '' || value === null) return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 && number <= 100 ? number : undefined;
};

const date = (value: unknown): string | undefined =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;

const choice = (
  key: string,
  label: string,
  values: readonly string[],
  any: string,
): WorkFilter => ({
  key,
  label,
  control: 'select',
  values,
  any,
  read: oneOf(values),
});

/** Keys whose value is undefined are left out, so the address stays short. */
function defined(search: WorkSearch): WorkSearch {
  return Object.fromEntries(Object.entries(search).filter(([, value]) => value !== undefined));
}

/** The address's check for a list with these filters (and the page size every list has). */
export const searchOf =
  (filters: readonly WorkFilter[]) =>
  (search: Record<string, unknown>): WorkSearch =>
    defined({
      ...Object.fromEntries(filters.map((filter) => [filter.key, filter.read(search[filter.key])])),
      per_page: perPage(search.per_page),
    });

/** What the API is asked for: a page of the chosen size, and the filters set. */
export function apiFilters(filters: readonly WorkFilter[], search: WorkSearch) {
  const asked: Record<string, string | number> = { per_page: search.per_page ?? 25 };
  for (const filter of filters) {
    const value = search[filter.key];
    if (value !== undefined) Object.assign(asked, filter.api?.(value) ?? { [filter.key]: value });
  }
  return asked;
}

export const SESSION_TYPES = ['remote_viewing', 'dowsing', 'automatic_writing'] as const;

export const SESSION_FILTERS: WorkFilter[] = [
  choice('status', 'Status', ['initiated', 'in_progress', 'completed', 'failed'], 'Any status'),
  choice('type', 'Type', SESSION_TYPES, 'Any type'),
  { key: 'created_after', label: 'Created after', control: 'date', read: date },
  {
    key: 'min_confidence',
    label: 'Confidence at least (%)',
    control: 'typed',
    read: percentage,
    input: { type: 'number', min: 0, max: 100, step: 1 },
    // The address says a percentage; the API filters on the share.
    api: (value) => ({ 'confidence_score[gte]': Number(value) / 100 }),
  },
  {
    key: 'analyst_id',
    label: 'Analyst id',
    control: 'typed',
    read: text,
    input: { placeholder: 'analyst_…' },
  },
];

export const TARGET_TYPES = ['location', 'person', 'object', 'event'] as const;
export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;

export const ANALYSIS_FILTERS: WorkFilter[] = [
  choice('status', 'Status', ['queued', 'processing', 'completed', 'failed'], 'Any status'),
  choice('target_type', 'Target type', TARGET_TYPES, 'Any target type'),
  choice('priority', 'Priority', PRIORITIES, 'Any priority'),
];

export const QUERY_TYPES = ['yes_no', 'information', 'location'] as const;

export const DOWSING_FILTERS: WorkFilter[] = [
  choice('query_type', 'Kind', QUERY_TYPES, 'Any kind'),
  choice('status', 'Status', ['pending', 'completed', 'failed'], 'Any status'),
  choice(
    'variant',
    'Variant',
    [
      'query',
      'multi_point',
      'energy_map',
      'depth_analysis',
      'material_identification',
      'chart_analysis',
      'location_finding',
      'energy_detection',
    ],
    'Any variant',
  ),
];
