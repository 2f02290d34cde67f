import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { rowMapping, Sql, SqlConditions, type Queryable, type Transaction } from '#database';
import type { JudgedTrialEntity } from './judged-trial.entity.js';
import type { WorkKind } from './judging-task.js';
import type { JudgedTrialGroup } from './track-record.js';

const TRIAL = rowMapping<JudgedTrialEntity, TrialColumn>('judged_trials', {
  id: 'id',
  organization_id: 'organizationId',
  judging_task_id: 'judgingTaskId',
  user_id: 'userId',
  work_kind: 'workKind',
  modality: 'modality',
  hit: 'hit',
  rank: 'rank',
  set_size: 'setSize',
  saic_accuracy: 'saicAccuracy',
  saic_reliability: 'saicReliability',
  judged_at: 'judgedAt',
});

type TrialColumn =
  | 'id'
  | 'organization_id'
  | 'judging_task_id'
  | 'user_id'
  | 'work_kind'
  | 'modality'
  | 'hit'
  | 'rank'
  | 'set_size'
  | 'saic_accuracy'
  | 'saic_reliability'
  | 'judged_at';

/** Which trials are summed: all, or one kind of work and/or one modality (null: none given). */
export interface TrialFilter {
  kind?: WorkKind;
  modality?: string | null;
}

interface GroupRow {
  set_size: number;
  trials: number;
  hits: number;
  scored: number;
  accuracy_sum: number | null;
  reliability_sum: number | null;
}

function groupOf(row: GroupRow): JudgedTrialGroup {
  return {
    setSize: row.set_size,
    trials: row.trials,
    hits: row.hits,
    scoredTrials: row.scored,
    accuracySum: row.accuracy_sum ?? 0,
    reliabilitySum: row.reliability_sum ?? 0,
  };
}

/**
 * The `judged_trials` table: one row per analyst per judged task, the rows
 * every track record is summed from. A trial holds the organisation; its
 * mode is its judging task's, so sums join the task and take the tenant.
 */
@Injectable()
export class JudgedTrialsRepository {
  constructor(private readonly sql: Sql) {}

  async insert(tx: Transaction, organizationId: string, trial: JudgedTrialEntity): Promise<void> {
    await tx.query(TRIAL.insert, TRIAL.toRow({ ...trial, organizationId }));
  }

  /** The tenant's trials of each of `userIds`, summed by judging set size. */
  async groupsBySetSize(
    tenant: Tenant,
    userIds: readonly string[],
    filter: TrialFilter,
    on: Queryable = this.sql,
  ): Promise<{ userId: string; group: JudgedTrialGroup }[]> {
    const where = new SqlConditions();
    where.and(`t.organization_id = ${where.param(tenant.organizationId)}`);
    where.and(`t.user_id = ANY (${where.param(userIds)}::uuid[])`);
    if (filter.kind !== undefined) where.and(`t.work_kind = ${where.param(filter.kind)}`);
    if (filter.modality === null) where.and('t.modality IS NULL');
    else if (filter.modality !== undefined)
      where.and(`t.modality = ${where.param(filter.modality)}`);
    const mode = where.param(tenant.mode);
    const rows = await on.rows<GroupRow & { user_id: string }>(
      `SELECT t.user_id, t.set_size, count(*)::int AS trials,
              count(*) FILTER (WHERE t.hit)::int AS hits,
              count(t.saic_accuracy)::int AS scored,
              sum(t.saic_accuracy) AS accuracy_sum, sum(t.saic_reliability) AS reliability_sum
         FROM judged_trials t
         JOIN judging_tasks j ON j.id = t.judging_task_id AND j.mode = ${mode}
        WHERE ${where.sql}
        GROUP BY t.user_id, t.set_size`,
      where.parameters,
    );
    return rows.map((row) => ({ userId: row.user_id, group: groupOf(row) }));
  }

  /**
   * One person's trials in the tenant, summed by kind of work, modality and
   * judging set size, kinds and modalities in alphabetical order (no modality first).
   */
  async groupsByKindAndModality(
    tenant: Tenant,
    userId: string,
    on: Queryable = this.sql,
  ): Promise<{ kind: WorkKind; modality: string | null; group: JudgedTrialGroup }[]> {
    const rows = await on.rows<GroupRow & { work_kind: WorkKind; modality: string | null }>(
      `SELECT t.work_kind, t.modality, t.set_size, count(*)::int AS trials,
              count(*) FILTER (WHERE t.hit)::int AS hits,
              count(t.saic_accuracy)::int AS scored,
              sum(t.saic_accuracy) AS accuracy_sum, sum(t.saic_reliability) AS reliability_sum
         FROM judged_trials t
         JOIN judging_tasks j ON j.id = t.judging_task_id AND j.mode = $3
        WHERE t.organization_id = $1 AND t.user_id = $2
        GROUP BY t.work_kind, t.modality, t.set_size
        ORDER BY t.work_kind, t.modality NULLS FIRST, t.set_size`,
      [tenant.organizationId, userId, tenant.mode],
    );
    return rows.map((row) => ({
      kind: row.work_kind,
      modality: row.modality,
      group: groupOf(row),
    }));
  }
}
