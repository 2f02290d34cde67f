import type { UsersRepository } from '#auth';
import type { Transaction } from '#database';
import { AppError, parsePublicId, type Tenant } from '#common';
import type { TaskingRequest } from './tasking.js';

/**
 * The analysts named by a request, checked: each an active analyst of the
 * organisation (else 400 naming `analyst_ids[i]`), none twice, no more than
 * `analyst_count`.
 */
export async function namedAnalysts(
  users: UsersRepository,
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
  const found = new Set(await users.activeAnalystsAmong(tenant.organizationId, uuids, tx));
  uuids.forEach((uuid, i) => {
    if (!found.has(uuid)) {
      throw AppError.invalid(`analyst_ids[${i}]`, 'is not an active analyst of your organisation');
    }
  });
  return uuids;
}

/**
 * Up to `count` of the candidates (with their open assignments), fewest
 * open assignments first, ties at random.
 */
export function leastLoaded(load: ReadonlyMap<string, number>, count: number): string[] {
  if (count <= 0) return [];
  return shuffled([...load.keys()])
    .sort((x, y) => load.get(x)! - load.get(y)!)
    .slice(0, count);
}

/** A copy in random order, so ties between equally loaded people fall at random. */
export function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
