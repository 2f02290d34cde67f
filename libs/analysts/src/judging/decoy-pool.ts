import type { Tenant } from '#common';
import type { SqlExecutor } from '#database';

/**
 * The judging side's reads of the organisation's target pool (`targets`,
 * `target_photos`), in plain SQL. The pool's own API lives in
 * libs/analysts/src/targets; this file is all judging needs of it.
 */

/** A pool target with its fetched photos, in the shape a candidate is stored in. */
export interface PoolTarget {
  id: string;
  description: string;
  descriptors: string[];
  latitude: number | null;
  longitude: number | null;
  photo_ids: string[];
}

/** Pool targets considered per draw at most (a random sample of a larger pool). */
const DRAW_SAMPLE = 200;

const TARGET_COLUMNS = `t.id, t.description, t.descriptors, t.latitude, t.longitude,
  COALESCE(array_agg(p.id ORDER BY p.position) FILTER (WHERE p.id IS NOT NULL), '{}') AS photo_ids`;

/** Targets of the tenant's pool other than `excludeTargetId`. */
export async function countPoolTargets(
  executor: SqlExecutor,
  tenant: Tenant,
  excludeTargetId: string | null,
): Promise<number> {
  const { rows } = (await executor.query(
    `SELECT count(*)::int AS count FROM targets
      WHERE organization_id = $1 AND mode = $2 AND ($3::uuid IS NULL OR id <> $3::uuid)`,
    [tenant.organizationId, tenant.mode, excludeTargetId],
  )) as { rows: { count: number }[] };
  return rows[0]!.count;
}

/** A random sample of the pool (other than `excludeTargetId`) to draw decoys from. */
export async function samplePool(
  executor: SqlExecutor,
  tenant: Tenant,
  excludeTargetId: string | null,
): Promise<PoolTarget[]> {
  const { rows } = (await executor.query(
    `SELECT ${TARGET_COLUMNS}
       FROM (SELECT * FROM targets
              WHERE organization_id = $1 AND mode = $2 AND ($3::uuid IS NULL OR id <> $3::uuid)
              ORDER BY random() LIMIT ${DRAW_SAMPLE}) AS t
       LEFT JOIN target_photos p ON p.target_id = t.id AND p.status = 'fetched'
      GROUP BY t.id, t.description, t.descriptors, t.latitude, t.longitude`,
    [tenant.organizationId, tenant.mode, excludeTargetId],
  )) as { rows: PoolTarget[] };
  return rows;
}

/** One target of the tenant's pool, or null. */
export async function poolTarget(
  executor: SqlExecutor,
  tenant: Tenant,
  targetId: string,
): Promise<PoolTarget | null> {
  const { rows } = (await executor.query(
    `SELECT ${TARGET_COLUMNS}
       FROM targets t LEFT JOIN target_photos p ON p.target_id = t.id AND p.status = 'fetched'
      WHERE t.id = $1 AND t.organization_id = $2 AND t.mode = $3
      GROUP BY t.id`,
    [targetId, tenant.organizationId, tenant.mode],
  )) as { rows: PoolTarget[] };
  return rows[0] ?? null;
}
