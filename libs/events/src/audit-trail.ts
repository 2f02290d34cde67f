import { newUuid, type Principal } from '#common';
import type { SqlExecutor } from '#database';

/**
 * Records, in the caller's transaction, what was done to a resource that will
 * no longer exist to say so itself, or a change whose earlier value must stay
 * on record: who (the credential's subject), which request, the action
 * (`session.deleted`, `history_case.outcome_corrected`, `history.imported`)
 * and, for a change, `details` with the earlier value (for an import, its
 * counts). A deletion keeps no data of the resource.
 */
export async function recordAudit(
  tx: SqlExecutor,
  principal: Principal,
  action: `${string}.${'deleted' | 'outcome_recorded' | 'outcome_corrected' | 'imported'}`,
  resourceId: string,
  requestId: string | null,
  details: Record<string, unknown> | null = null,
): Promise<void> {
  await tx.query(
    `INSERT INTO audit_records (id, organization_id, mode, action, resource_id, actor, request_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      newUuid(),
      principal.organizationId,
      principal.mode,
      action,
      resourceId,
      principal.subject,
      requestId,
      details === null ? null : JSON.stringify(details),
    ],
  );
}
