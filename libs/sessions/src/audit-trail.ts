import { newKey, type Principal } from '#common';
import type { SqlExecutor } from '#database';

/**
 * Records, in the caller's transaction, what was done to a resource that will
 * no longer exist to say so itself: who (the credential's subject), which
 * request, the action (`session.deleted`, `analysis.deleted`). No data of the
 * resource is kept.
 */
export async function recordAudit(
  tx: SqlExecutor,
  principal: Principal,
  action: `${string}.deleted`,
  resourceId: string,
  requestId: string | null,
): Promise<void> {
  await tx.query(
    `INSERT INTO audit_records (id, organization_id, mode, action, resource_id, actor, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      newKey('auditRecord').uuid,
      principal.organizationId,
      principal.mode,
      action,
      resourceId,
      principal.subject,
      requestId,
    ],
  );
}
