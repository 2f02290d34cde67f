import type { Api } from '@sas/sdk';
import { Fragment } from 'react';

export type CaseType = Api.HistorySearchItemDto['type'];
export type Verdict = NonNullable<Api.HistorySearchItemDto['verdict']>;

/** The case types of the API, in the words people use. */
export const CASE_TYPES: { value: CaseType; label: string }[] = [
  { value: 'remote_viewing', label: 'Remote viewing' },
  { value: 'dowsing', label: 'Dowsing' },
  { value: 'automatic_writing', label: 'Automatic writing' },
  { value: 'analysis', label: 'Analysis' },
];

export const VERDICTS: { value: Verdict; label: string }[] = [
  { value: 'hit', label: 'Hit' },
  { value: 'partial', label: 'Partial' },
  { value: 'miss', label: 'Miss' },
];

export function typeLabel(type: string | null | undefined): string {
  return CASE_TYPES.find((entry) => entry.value === type)?.label ?? type ?? 'Any type';
}

export function verdictLabel(verdict: Verdict | null): string {
  return VERDICTS.find((entry) => entry.value === verdict)?.label ?? 'Not verified';
}

export const isCaseType = (value: unknown): value is CaseType =>
  CASE_TYPES.some((entry) => entry.value === value);

export function formatDate(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : '—';
}

export function formatPoint(point: { latitude: number; longitude: number } | null | undefined) {
  return point ? `${point.latitude.toFixed(5)}, ${point.longitude.toFixed(5)}` : '—';
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&#x27;': "'",
};

function unescape(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** A snippet's plain text (to tell whether it says more than the target). */
export function snippetText(html: string): string {
  return unescape(html.replace(/<\/?mark>/g, ''));
}

/**
 * A search snippet (HTML-escaped text with `<mark>` around the matched words)
 * as React elements, without inserting HTML into the page.
 */
export function Snippet({ html }: { html: string }) {
  const parts = html.split(/<\/?mark>/);
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <mark key={index}>{unescape(part)}</mark>
        ) : (
          <Fragment key={index}>{unescape(part)}</Fragment>
        ),
      )}
    </>
  );
}
