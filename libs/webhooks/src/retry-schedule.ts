/** Delay before each attempt, in seconds (the spec's retry policy): 7 attempts in all. */
export const RETRY_DELAYS_SECONDS = [0, 5, 30, 120, 600, 1800, 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length;
/** The receiver must answer within this (spec: Limits). */
export const DELIVERY_TIMEOUT_MS = 5000;

/**
 * Milliseconds to wait before the attempt after `attemptsMade` attempts, or
 * null when none is left. A `Retry-After` from a 429 or 503 can push the next
 * attempt later than the schedule says, but never past the schedule's longest
 * step, so one receiver cannot stretch the schedule without bound.
 */
export function nextDelayMs(
  attemptsMade: number,
  maxAttempts: number,
  scale: number,
  retryAfterSeconds: number | null,
): number | null {
  if (attemptsMade >= maxAttempts) return null;
  const step = RETRY_DELAYS_SECONDS[Math.min(attemptsMade, MAX_ATTEMPTS - 1)]!;
  const longest = RETRY_DELAYS_SECONDS[MAX_ATTEMPTS - 1];
  const seconds =
    retryAfterSeconds === null ? step : Math.min(Math.max(step, retryAfterSeconds), longest);
  return Math.round(seconds * 1000 * scale);
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // An HTTP date names its day and month; Date.parse would also take "-5" or "2026".
  if (!/[a-z]{3}/i.test(trimmed)) return null;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}
