import type { Sql } from '#database';
import type { ApiResponse } from './client.js';

/** An audit event as the tests compare it: who, on what, what changed (not where from, nor when). */
export interface AuditRow {
  organization_id: string;
  mode: string;
  action: string;
  actor_type: string;
  actor_id: string;
  target_type: string;
  target_id: string;
  changes: Record<string, { before: unknown; after: unknown }> | null;
  details: Record<string, unknown> | null;
}

export const AUDIT_COLUMNS = `organization_id, mode, action, actor_type, actor_id, target_type,
  target_id, changes, details`;

/** The audit events a response's request recorded, oldest first. */
export function auditOf(sql: Sql, response: ApiResponse): Promise<AuditRow[]> {
  return sql.rows<AuditRow>(
    `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE request_id = $1 ORDER BY created_at, id`,
    [response.headers.get('x-request-id')],
  );
}
