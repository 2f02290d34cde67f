import { newUuid, type Principal } from '#common';
import type { Transaction } from '#database';

/** What an audit record says; `details` null for a deletion, which keeps no data. */
export interface AuditEntry {
  action: string;
  resourceId: string;
  requestId: string | null;
  details: Record<string, unknown> | null;
}

/**
 * The `audit_records` table. Its one statement runs in the transaction of
 * the change it records, which every lib makes through `recordAudit`, a
 * function; so `insert` is static, and nothing here reads the pool.
 */
export class AuditRecordsRepository {
  static async insert(tx: Transaction, principal: Principal, entry: AuditEntry): Promise<void> {
    await tx.query(
      `INSERT INTO audit_records (id, organization_id, mode, action, resource_id, actor, request_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        newUuid(),
        principal.organizationId,
        principal.mode,
        entry.action,
        entry.resourceId,
        principal.subject,
        entry.requestId,
        entry.details === null ? null : JSON.stringify(entry.details),
      ],
    );
  }
}
