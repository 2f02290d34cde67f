import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long the suite waits for any condition — a child process or server to be ready, a job
 * to finish, a webhook to arrive, a replica to catch up, a page to show something — before it
 * fails. Generous on purpose: CI machines are shared, and at a load average of 8 on 2 cores an
 * API that starts in 3 s on a quiet machine took more than 30 s. A wait returns as soon as its
 * condition holds, so this costs nothing when things work; it only bounds how long a broken
 * test takes to say so. Every readiness and condition deadline in test/ is this value, but for
 * REVOCATION_DEADLINE_MS below.
 */
export const DEADLINE_MS = 5 * 60_000;

/**
 * A test's and a hook's own limit (vitest.config.ts, and any test that sets one): above
 * DEADLINE_MS with room for a few waits in a row, so the wait that ran out reports what it
 * waited for rather than vitest reporting only that the test ran long.
 */
export const TEST_TIMEOUT_MS = 3 * DEADLINE_MS;

/**
 * The one deadline that must stay short: a revoked API key must be refused by every API
 * instance well before the key cache's own 30 s TTL (libs/api-keys) would drop it anyway, or a
 * lost invalidation message would go unnoticed. Still generous for a message over Redis.
 */
export const REVOCATION_DEADLINE_MS = 15_000;

/** Polls until `probe` returns something, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined>,
  timeoutMs = DEADLINE_MS,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
