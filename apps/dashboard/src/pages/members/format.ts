const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "in 3 hours", "5 minutes ago": how far a moment is from now. */
export function relativeTime(iso: string, now = Date.now()): string {
  const difference = new Date(iso).getTime() - now;
  for (const [unit, size] of UNITS) {
    if (Math.abs(difference) >= size) return RELATIVE.format(Math.round(difference / size), unit);
  }
  return RELATIVE.format(Math.round(difference / 1000), 'second');
}

export function absoluteTime(iso: string): string {
  return new Date(iso).toLocaleString();
}

export const KIND_LABELS = {
  session: 'Session',
  analysis: 'Target analysis',
  dowsing: 'Dowsing query',
} as const;

/** The last segment of a file URL the API gives (a sketch id, a photo position). */
export function lastSegment(url: string): string {
  return decodeURIComponent(new URL(url, location.origin).pathname.split('/').pop() ?? '');
}
