import type { Transaction } from '#database';
import { AppError, type Tenant } from '#common';
import type { OrganizationLimits } from './organization-limits.js';

/** One kind of work that counts against the plan's concurrent-work limit, each kind on its own. */
export interface ConcurrentWork {
  /** Table of the work; a fixed identifier, never input. */
  table: 'sessions' | 'analyses';
  /** Statuses that hold a place: the work is waiting or running. */
  running: readonly string[];
  /** Plural noun for messages ("sessions"). */
  noun: string;
  /** The field the 429 names (`concurrent_sessions`). */
  field: string;
}

/**
 * Refuses (429, rolling back the caller's transaction) when the work just
 * inserted takes the tenant over the plan's concurrent limit for that kind.
 * `limits` are looked up before the transaction began (a cache miss inside
 * it would wait for a second pool connection while holding one). Runs after
 * the inserts, so the per-tenant lock is held only for this count and the
 * commit: concurrent creates serialise here, and each count (a fresh snapshot
 * once the lock is granted) sees every create committed before it.
 */
export async function assertConcurrentWorkWithin(
  tx: Transaction,
  tenant: Tenant,
  limits: OrganizationLimits | null,
  work: ConcurrentWork,
): Promise<void> {
  if (!limits) return;
  const limit = limits.concurrentSessions;
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `${work.table}:${tenant.organizationId}:${tenant.mode}`,
  ]);
  // Counting stops past the limit, so the check costs the same however many are running.
  const { running } = (
    await tx.query<{ running: number }>(
      `SELECT count(*)::int AS running FROM (
         SELECT 1 FROM ${work.table} WHERE organization_id = $1 AND mode = $2
            AND status = ANY($3) LIMIT $4) AS running`,
      [tenant.organizationId, tenant.mode, work.running, limit + 1],
    )
  ).rows[0]!;
  if (running <= limit) return;
  const { next_done } = (
    await tx.query<{ next_done: Date | null }>(
      `SELECT min(estimated_completion) AS next_done FROM ${work.table}
        WHERE organization_id = $1 AND mode = $2 AND status = ANY($3)`,
      [tenant.organizationId, tenant.mode, work.running],
    )
  ).rows[0]!;
  const waitSeconds = Math.ceil(((next_done?.getTime() ?? 0) - Date.now()) / 1000);
  const states = work.running.join(' or ').replaceAll('_', ' ');
  throw new AppError(
    'RATE_LIMITED',
    `The ${limits.plan} plan allows ${limit} concurrent ${work.noun} (${states}), and that many are running`,
    {
      field: work.field,
      issue: `at most ${limit} ${work.noun} may be ${states} at once`,
      limit,
      plan: limits.plan,
    },
    { 'Retry-After': String(Math.max(1, waitSeconds)) },
  );
}
