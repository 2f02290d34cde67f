// The audit log's filters as they stand in the page's address
// (`/organisation/audit-log?action=api_key.created&from=2025-01-01`): loaded with
// the routes, which check the address with them; anything malformed is dropped.

export interface AuditSearch {
  action?: string;
  actor_id?: string;
  target_id?: string;
  /** A day (`YYYY-MM-DD`) in the browser's zone: events from its start. */
  from?: string;
  /** A day (`YYYY-MM-DD`) in the browser's zone: events up to its end. */
  to?: string;
  per_page?: number;
}

export const AUDIT_PER_PAGE = [10, 25, 50, 100] as const;

const ACTION = /^[a-z][a-z_]*\.[a-z][a-z_]*$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const text = (value: unknown) =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
const matching = (pattern: RegExp) => (value: unknown) => {
  const given = text(value);
  return given !== undefined && pattern.test(given) ? given : undefined;
};

/** Reads the address's search parameters; keys left undefined stay out of the address. */
export function validateAuditSearch(search: Record<string, unknown>): AuditSearch {
  const perPage = Number(search.per_page);
  const read: AuditSearch = {
    action: matching(ACTION)(search.action),
    // Ids as typed: the API says what is wrong with one.
    actor_id: text(search.actor_id),
    target_id: text(search.target_id),
    from: matching(DAY)(search.from),
    to: matching(DAY)(search.to),
    per_page: (AUDIT_PER_PAGE as readonly number[]).includes(perPage) ? perPage : undefined,
  };
  return Object.fromEntries(
    Object.entries(read).filter(([, value]) => value !== undefined),
  ) as AuditSearch;
}
