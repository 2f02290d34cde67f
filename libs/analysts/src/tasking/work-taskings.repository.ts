import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { rowMapping, Sql, type Queryable, type Transaction } from '#database';
import type { TaskedKind, Tasking } from './tasking.js';

export const TASKING = rowMapping<Tasking, TaskingColumn>('work_taskings', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  work_kind: 'kind',
  work_id: 'workId',
  target_reference_number: 'referenceNumber',
  target: 'target',
  target_commitment: 'commitment',
  target_nonce: 'nonce',
  target_id: 'targetId',
  modality: 'modality',
  question_type: 'questionType',
  duration_minutes: 'durationMinutes',
  analyst_count: 'analystCount',
  judging: 'judging',
  decoy_count: 'decoyCount',
  deadline: 'deadline',
  closed_at: 'closedAt',
  created_at: 'createdAt',
});

export type TaskingColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'work_kind'
  | 'work_id'
  | 'target_reference_number'
  | 'target'
  | 'target_commitment'
  | 'target_nonce'
  | 'target_id'
  | 'modality'
  | 'question_type'
  | 'duration_minutes'
  | 'analyst_count'
  | 'judging'
  | 'decoy_count'
  | 'deadline'
  | 'closed_at'
  | 'created_at';

export type TaskingRow = Record<TaskingColumn, unknown>;

/** A tasking's columns in a statement that calls `work_taskings` `t` (joined with its assignments). */
export const TASKING_COLUMNS = TASKING.columns.map((column) => `t.${column}`).join(', ');

/**
 * The `work_taskings` table: one row per piece of work given to people. The
 * deadline sweep's read crosses tenants; everything else is the tenant's.
 */
@Injectable()
export class WorkTaskingsRepository {
  constructor(private readonly sql: Sql) {}

  async insert(tx: Transaction, tenant: Tenant, tasking: Tasking): Promise<void> {
    await tx.query(
      TASKING.insert,
      TASKING.toRow({ ...tasking, organizationId: tenant.organizationId, mode: tenant.mode }),
    );
  }

  /** The tasking of a piece of work, or null when people are not doing it. */
  async findOfWork(
    tenant: Tenant,
    kind: TaskedKind,
    workId: string,
    on: Queryable = this.sql,
  ): Promise<Tasking | null> {
    const [row] = await on.rows<TaskingRow>(
      `SELECT ${TASKING_COLUMNS} FROM work_taskings t
        WHERE t.work_kind = $1 AND t.work_id = $2 AND t.organization_id = $3 AND t.mode = $4`,
      [kind, workId, tenant.organizationId, tenant.mode],
    );
    return row ? TASKING.fromRow(row) : null;
  }

  /** Open taskings of a kind whose deadline has passed, oldest first, whoever's they are. */
  async findOverdueAcrossTenants(
    kind: TaskedKind,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<Tasking[]> {
    const rows = await on.rows<TaskingRow>(
      `SELECT ${TASKING_COLUMNS} FROM work_taskings t
        WHERE t.closed_at IS NULL AND t.deadline <= now() AND t.work_kind = $1
        ORDER BY t.deadline LIMIT $2`,
      [kind, limit],
    );
    return rows.map((row) => TASKING.fromRow(row));
  }

  /** Closes the tasking at `at`; false when it was closed already. */
  async close(tx: Transaction, tenant: Tenant, id: string, at: Date): Promise<boolean> {
    const closed = await tx.query(
      `UPDATE work_taskings SET closed_at = $2
        WHERE id = $1 AND closed_at IS NULL AND organization_id = $3 AND mode = $4`,
      [id, at, tenant.organizationId, tenant.mode],
    );
    return Boolean(closed.rowCount);
  }

  /** Brings the deadline to `to` unless it is earlier, so the deadline sweep closes the work. */
  async bringDeadlineForward(tx: Transaction, tenant: Tenant, id: string, to: Date): Promise<void> {
    await tx.query(
      `UPDATE work_taskings SET deadline = LEAST(deadline, $2)
        WHERE id = $1 AND organization_id = $3 AND mode = $4`,
      [id, to, tenant.organizationId, tenant.mode],
    );
  }

  /** As bringDeadlineForward, for those of `ids` on which nobody has yet to submit. */
  async bringDeadlinesForwardWhereNoneWaiting(
    tx: Transaction,
    tenant: Tenant,
    ids: readonly string[],
    to: Date,
  ): Promise<void> {
    await tx.query(
      `UPDATE work_taskings t SET deadline = LEAST(t.deadline, $2)
        WHERE t.id = ANY($1::uuid[]) AND t.organization_id = $3 AND t.mode = $4
          AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.tasking_id = t.id AND a.status = 'assigned')`,
      [ids, to, tenant.organizationId, tenant.mode],
    );
  }

  /**
   * The open taskings on which `userId` holds an assignment not yet
   * submitted, locked in id order (the order TaskingService.close locks a
   * tasking before its assignments) until `tx` ends.
   */
  async lockOpenHeldBy(tx: Transaction, tenant: Tenant, userId: string): Promise<string[]> {
    const rows = await tx.rows<{ id: string }>(
      `SELECT t.id FROM work_taskings t
        WHERE t.closed_at IS NULL AND t.organization_id = $2 AND t.mode = $3
          AND t.id IN (SELECT tasking_id FROM assignments WHERE user_id = $1 AND status = 'assigned')
        ORDER BY t.id
        FOR NO KEY UPDATE OF t`,
      [userId, tenant.organizationId, tenant.mode],
    );
    return rows.map((row) => row.id);
  }

  /** The work is deleted: its tasking goes (its assignments with it, by the foreign keys). */
  async deleteOfWork(
    tx: Transaction,
    tenant: Tenant,
    kind: TaskedKind,
    workId: string,
  ): Promise<void> {
    await tx.query(
      `DELETE FROM work_taskings
        WHERE work_kind = $1 AND work_id = $2 AND organization_id = $3 AND mode = $4`,
      [kind, workId, tenant.organizationId, tenant.mode],
    );
  }
}
