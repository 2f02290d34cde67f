import type { Transaction } from '#database';
import { AppError, parsePublicId, type Tenant } from '#common';
import type { TaskingRequest } from './tasking.js';

/** Assignments that still hold an analyst's time. */
export const OPEN_STATUSES = `('assigned', 'submitted')`;

/**
 * The analysts named by a request, checked: each an active analyst of the
 * organisation (else 400 naming `analyst_ids[i]`), none twice, no more than
 * `analyst_count`.
 */
export async function namedAnalysts(
  tx: Transaction,
  tenant: Tenant,
  request: TaskingRequest,
): Promise<string[]> {
  const ids = request.analystIds ?? [];
  if (ids.length > request.analystCount) {
    throw AppError.invalid(
      'analyst_ids',
      `names ${ids.length} analysts but analyst_count is ${request.analystCount}`,
    );
  }
  const uuids = ids.map((id, i) => {
    const uuid = parsePublicId('analyst', id);
    if (uuid === null)
      throw AppError.invalid(`analyst_ids[${i}]`, 'must be an analyst id (analyst_…)');
    if (ids.indexOf(id) !== i) {
      throw AppError.invalid(
        `analyst_ids[${i}]`,
        'names an analyst twice: one person works once on a piece of work',
      );
    }
    return uuid;
  });
  if (uuids.length === 0) return [];
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM users WHERE id = ANY($1) AND organization_id = $2 AND disabled_at IS NULL
          AND 'analyst' = ANY(roles)`,
    [uuids, tenant.organizationId],
  );
  const found = new Set(rows.map((row) => row.id));
  uuids.forEach((uuid, i) => {
    if (!found.has(uuid)) {
      throw AppError.invalid(`analyst_ids[${i}]`, 'is not an active analyst of your organisation');
    }
  });
  return uuids;
}

/** Up to `count` active analysts, fewest open assignments first (ties at random), none of `excluded`. */
export async function pickAnalysts(
  tx: Transaction,
  tenant: { organizationId: string },
  count: number,
  excluded: readonly string[],
): Promise<string[]> {
  if (count <= 0) return [];
  const { rows } = await tx.query<{ id: string }>(
    `SELECT u.id FROM users u
        WHERE u.organization_id = $1 AND u.disabled_at IS NULL AND 'analyst' = ANY(u.roles)
          AND NOT (u.id = ANY($2))
        ORDER BY (SELECT count(*) FROM assignments a
                   WHERE a.user_id = u.id AND a.status IN ${OPEN_STATUSES}), random()
        LIMIT $3`,
    [tenant.organizationId, excluded, count],
  );
  return rows.map((row) => row.id);
}
