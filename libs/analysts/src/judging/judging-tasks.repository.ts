import { Injectable } from '@nestjs/common';
import { toPublicId, type Mode, type Tenant } from '#common';
import {
  keysetPage,
  Sql,
  SqlConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import type { JudgingTask, JudgingTaskStatus, StoredCandidate, WorkKind } from './judging-task.js';

/** The columns of a judging task with its tasking's kind, work and modality (`j` and `w`). */
const JUDGING_TASK_SELECT = `j.id, j.organization_id, j.mode, j.tasking_id, w.work_kind, w.work_id,
  w.modality, j.judge_user_id, j.status, j.candidates, j.true_candidate_id, j.ranking, j.ranked_at,
  j.event_sequence, j.created_at
  FROM judging_tasks j JOIN work_taskings w ON w.id = j.tasking_id`;

interface JudgingTaskRow {
  id: string;
  organization_id: string;
  mode: Mode;
  tasking_id: string;
  work_kind: WorkKind;
  work_id: string;
  modality: string | null;
  judge_user_id: string | null;
  status: JudgingTaskStatus;
  candidates: StoredCandidate[];
  true_candidate_id: string;
  ranking: string[] | null;
  ranked_at: Date | null;
  event_sequence: number;
  created_at: Date;
}

function judgingTaskOf(row: JudgingTaskRow): JudgingTask {
  return {
    id: row.id,
    organizationId: row.organization_id,
    mode: row.mode,
    taskingId: row.tasking_id,
    kind: row.work_kind,
    workPublicId: toPublicId(row.work_kind, row.work_id),
    modality: row.modality,
    judgeUserId: row.judge_user_id,
    status: row.status,
    candidates: row.candidates,
    trueCandidateId: row.true_candidate_id,
    ranking: row.ranking,
    rankedAt: row.ranked_at,
    eventSequence: row.event_sequence,
    createdAt: row.created_at,
  };
}

/** A judging task as opened, before anyone ranked it. */
export interface NewJudgingTask {
  id: string;
  taskingId: string;
  judgeUserId: string | null;
  status: 'awaiting_judge' | 'pending';
  candidates: StoredCandidate[];
  trueCandidateId: string;
  createdAt: Date;
}

/**
 * The `judging_tasks` table: one per judged piece of work. Reads come with
 * the tasking's kind, work and modality (`work_taskings`), one statement.
 * The periodic hand-out finds waiting tasks across tenants; everything else
 * is the tenant's.
 */
@Injectable()
export class JudgingTasksRepository {
  constructor(private readonly sql: Sql) {}

  /** Stores a new task at event sequence 1 (its `judging_task.created` is written with it). */
  async insert(tx: Transaction, tenant: Tenant, task: NewJudgingTask): Promise<void> {
    await tx.query(
      `INSERT INTO judging_tasks (id, organization_id, mode, tasking_id, judge_user_id, status,
         candidates, true_candidate_id, event_sequence, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9)`,
      [
        task.id,
        tenant.organizationId,
        tenant.mode,
        task.taskingId,
        task.judgeUserId,
        task.status,
        JSON.stringify(task.candidates),
        task.trueCandidateId,
        task.createdAt,
      ],
    );
  }

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<JudgingTask | null> {
    const [row] = await on.rows<JudgingTaskRow>(
      `SELECT ${JUDGING_TASK_SELECT} WHERE j.id = $1 AND j.organization_id = $2 AND j.mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? judgingTaskOf(row) : null;
  }

  /** As `find`, the task's row locked until `tx` ends. */
  async lock(tx: Transaction, tenant: Tenant, id: string): Promise<JudgingTask | null> {
    const [row] = await tx.rows<JudgingTaskRow>(
      `SELECT ${JUDGING_TASK_SELECT}
        WHERE j.id = $1 AND j.organization_id = $2 AND j.mode = $3 FOR UPDATE OF j`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? judgingTaskOf(row) : null;
  }

  /** The judge's own tasks (`judge_user_id`), newest first; `status` filters. */
  page(
    tenant: Tenant,
    judgeUserId: string,
    status: JudgingTaskStatus | undefined,
    request: PageRequest,
    on: Queryable = this.sql,
  ): Promise<KeysetPage<JudgingTask>> {
    const where = new SqlConditions();
    where.and(`judge_user_id = ${where.param(judgeUserId)}`);
    where.and(`organization_id = ${where.param(tenant.organizationId)}`);
    where.and(`mode = ${where.param(tenant.mode)}`);
    if (status !== undefined) where.and(`status = ${where.param(status)}`);
    return keysetPage(
      (text, parameters) => on.rows(text, parameters),
      {
        table: 'judging_tasks',
        where,
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) =>
          (
            await on.rows<JudgingTaskRow>(
              `SELECT ${JUDGING_TASK_SELECT} WHERE j.id IN (${idsSql})
                ORDER BY j.created_at DESC, j.id DESC`,
              parameters,
            )
          ).map(judgingTaskOf),
      },
      request,
    );
  }

  /** The judge's ranking, best first, at event sequence `sequence`. */
  async recordRanking(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    ranking: readonly string[],
    at: Date,
    sequence: number,
  ): Promise<void> {
    await tx.query(
      `UPDATE judging_tasks SET status = 'ranked', ranking = $2, ranked_at = $3, event_sequence = $4
        WHERE id = $1 AND organization_id = $5 AND mode = $6`,
      [id, ranking, at, sequence, tenant.organizationId, tenant.mode],
    );
  }

  /** The tenant's oldest tasks waiting for a judge, up to `limit`. */
  async awaitingJudge(tenant: Tenant, limit: number, on: Queryable = this.sql): Promise<string[]> {
    const rows = await on.rows<{ id: string }>(
      `SELECT id FROM judging_tasks
        WHERE organization_id = $1 AND mode = $2 AND status = 'awaiting_judge'
        ORDER BY created_at, id LIMIT $3`,
      [tenant.organizationId, tenant.mode, limit],
    );
    return rows.map((row) => row.id);
  }

  /** Every tenant with a task waiting for a judge. */
  async tenantsAwaitingJudgeAcrossTenants(on: Queryable = this.sql): Promise<Tenant[]> {
    const rows = await on.rows<{ organization_id: string; mode: Mode }>(
      `SELECT DISTINCT organization_id, mode FROM judging_tasks WHERE status = 'awaiting_judge'`,
    );
    return rows.map((row) => ({ organizationId: row.organization_id, mode: row.mode }));
  }

  /**
   * The tasking of a task still waiting for a judge, its row locked until
   * `tx` ends; null when it no longer waits or another run holds it.
   */
  async lockAwaitingJudge(tx: Transaction, tenant: Tenant, id: string): Promise<string | null> {
    const [row] = await tx.rows<{ tasking_id: string }>(
      `SELECT tasking_id FROM judging_tasks
        WHERE id = $1 AND status = 'awaiting_judge' AND organization_id = $2 AND mode = $3
        FOR UPDATE SKIP LOCKED`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row?.tasking_id ?? null;
  }

  async giveToJudge(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    judgeUserId: string,
  ): Promise<void> {
    await tx.query(
      `UPDATE judging_tasks SET judge_user_id = $2, status = 'pending'
        WHERE id = $1 AND organization_id = $3 AND mode = $4`,
      [id, judgeUserId, tenant.organizationId, tenant.mode],
    );
  }

  /** How many `pending` tasks each of `judgeUserIds` holds (every one of them in the answer). */
  async pendingCounts(
    tenant: Tenant,
    judgeUserIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<Map<string, number>> {
    const counts = new Map<string, number>(judgeUserIds.map((id) => [id, 0]));
    if (judgeUserIds.length === 0) return counts;
    const rows = await on.rows<{ judge_user_id: string; pending: number }>(
      `SELECT judge_user_id, count(*)::int AS pending FROM judging_tasks
        WHERE judge_user_id = ANY($1::uuid[]) AND status = 'pending'
          AND organization_id = $2 AND mode = $3
        GROUP BY judge_user_id`,
      [judgeUserIds, tenant.organizationId, tenant.mode],
    );
    for (const row of rows) counts.set(row.judge_user_id, row.pending);
    return counts;
  }
}
