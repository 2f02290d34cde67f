import type { Principal } from '#common';
import { AuditRecordsRepository } from './audit-records.repository.js';
import type { Transaction } from '#database';

/**
 * Records, in the caller's transaction, what was done to a resource that will
 * no longer exist to say so itself, or a change whose earlier value must stay
 * on record: who (the credential's subject), which request, the action
 * (`session.deleted`, `history_case.outcome_corrected`, `history.imported`)
 * and, for a change, `details` with the earlier value (for an import, its
 * counts). A deletion keeps no data of the resource.
 */
export async function recordAudit(
  tx: Transaction,
  principal: Principal,
  action: `${string}.${'deleted' | 'outcome_recorded' | 'outcome_corrected' | 'imported'}`,
  resourceId: string,
  requestId: string | null,
  details: Record<string, unknown> | null = null,
): Promise<void> {
  await AuditRecordsRepository.insert(tx, principal, { action, resourceId, requestId, details });
}
