import { AppError } from '#common';
import type { OrganizationLimits } from './organization-limits.js';

/** One kind of work that counts against the plan's concurrent-work limit, each kind on its own. */
export interface ConcurrentWorkKind {
  /** Statuses that hold a place: the work is waiting or running (named in the 429). */
  running: readonly string[];
  /** Plural noun for messages ("sessions"). */
  noun: string;
  /** The field the 429 names (`concurrent_sessions`). */
  field: string;
}

/**
 * A tenant's running work of one kind, as the repository of the lib that
 * owns the work counts it in the creating transaction: this lib names no
 * work table.
 */
export interface RunningWork {
  /**
   * Takes the tenant's lock on this kind's count until the transaction ends
   * (concurrent creates serialise there), then counts the work holding a
   * place, stopping at `atMost` so the check costs the same however many run.
   */
  countLocked(atMost: number): Promise<number>;
  /** When the first running piece is expected to finish (for Retry-After); null when none says. */
  nextCompletion(): Promise<Date | null>;
}

/**
 * Refuses (429, rolling back the caller's transaction) when the work just
 * inserted takes the tenant over the plan's concurrent limit for that kind.
 * `limits` are looked up before the transaction began (a cache miss inside
 * it would wait for a second pool connection while holding one). Runs after
 * the inserts, so the per-tenant lock is held only for the count and the
 * commit, and each count (a fresh snapshot once the lock is granted) sees
 * every create committed before it.
 */
export async function assertRunningWorkWithin(
  limits: OrganizationLimits | null,
  kind: ConcurrentWorkKind,
  work: RunningWork,
): Promise<void> {
  if (!limits) return;
  const limit = limits.concurrentSessions;
  if ((await work.countLocked(limit + 1)) <= limit) return;
  const nextDone = await work.nextCompletion();
  const waitSeconds = Math.ceil(((nextDone?.getTime() ?? 0) - Date.now()) / 1000);
  const states = kind.running.join(' or ').replaceAll('_', ' ');
  throw new AppError(
    'RATE_LIMITED',
    `The ${limits.plan} plan allows ${limit} concurrent ${kind.noun} (${states}), and that many are running`,
    {
      field: kind.field,
      issue: `at most ${limit} ${kind.noun} may be ${states} at once`,
      limit,
      plan: limits.plan,
    },
    { 'Retry-After': String(Math.max(1, waitSeconds)) },
  );
}
