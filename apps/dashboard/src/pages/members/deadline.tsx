import { absoluteTime, relativeTime } from './format';

/** A deadline both ways: "in 3 hours" and the date and time it falls on. */
export function Deadline({ iso }: { iso: string }) {
  return (
    <>
      <time dateTime={iso}>{relativeTime(iso)}</time>{' '}
      <span className="muted">({absoluteTime(iso)})</span>
    </>
  );
}
