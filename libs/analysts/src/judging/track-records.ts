import { Injectable } from '@nestjs/common';
import { Sql, SqlConditions } from '#database';
import type { WorkKind } from './judging-task.js';
import { trackRecordOf, type JudgedTrialGroup, type TrackRecord } from './track-record.js';

/** Which trials a track record sums: all, or one kind of work and/or one modality (null: none given). */
export interface TrackRecordFilter {
  kind?: WorkKind;
  modality?: string | null;
}

/**
 * Analysts' track records, summed from `judged_trials` — live work only:
 * judging tasks of the sandbox never count (the join keeps that true even
 * if one were opened there).
 */
@Injectable()
export class TrackRecords {
  constructor(private readonly sql: Sql) {}

  /** Every requested user is in the answer, with an empty record when they have no trials. */
  async of(
    organizationId: string,
    userIds: readonly string[],
    filter: TrackRecordFilter = {},
  ): Promise<Map<string, TrackRecord>> {
    const groups = new Map<string, JudgedTrialGroup[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return new Map();
    const where = new SqlConditions();
    where.and(`t.organization_id = ${where.param(organizationId)}`);
    where.and(`t.user_id = ANY (${where.param(userIds)}::uuid[])`);
    if (filter.kind !== undefined) where.and(`t.work_kind = ${where.param(filter.kind)}`);
    if (filter.modality === null) where.and('t.modality IS NULL');
    else if (filter.modality !== undefined)
      where.and(`t.modality = ${where.param(filter.modality)}`);
    const rows = await this.sql.rows<{
      user_id: string;
      set_size: number;
      trials: number;
      hits: number;
      scored: number;
      accuracy_sum: number | null;
      reliability_sum: number | null;
    }>(
      `SELECT t.user_id, t.set_size, count(*)::int AS trials,
              count(*) FILTER (WHERE t.hit)::int AS hits,
              count(t.saic_accuracy)::int AS scored,
              sum(t.saic_accuracy) AS accuracy_sum, sum(t.saic_reliability) AS reliability_sum
         FROM judged_trials t
         JOIN judging_tasks j ON j.id = t.judging_task_id AND j.mode = 'live'
        WHERE ${where.sql}
        GROUP BY t.user_id, t.set_size`,
      where.parameters,
    );
    for (const row of rows) {
      groups.get(row.user_id)?.push({
        setSize: row.set_size,
        trials: row.trials,
        hits: row.hits,
        scoredTrials: row.scored,
        accuracySum: row.accuracy_sum ?? 0,
        reliabilitySum: row.reliability_sum ?? 0,
      });
    }
    return new Map([...groups].map(([userId, list]) => [userId, trackRecordOf(list)]));
  }

  /**
   * One analyst's record for each kind of work and modality they have judged
   * trials in (a modality of null: work without one), kinds and modalities in
   * alphabetical order.
   */
  async byKindAndModality(
    organizationId: string,
    userId: string,
  ): Promise<{ kind: WorkKind; modality: string | null; record: TrackRecord }[]> {
    const rows = await this.sql.rows<{
      work_kind: WorkKind;
      modality: string | null;
      set_size: number;
      trials: number;
      hits: number;
      scored: number;
      accuracy_sum: number | null;
      reliability_sum: number | null;
    }>(
      `SELECT t.work_kind, t.modality, t.set_size, count(*)::int AS trials,
              count(*) FILTER (WHERE t.hit)::int AS hits,
              count(t.saic_accuracy)::int AS scored,
              sum(t.saic_accuracy) AS accuracy_sum, sum(t.saic_reliability) AS reliability_sum
         FROM judged_trials t
         JOIN judging_tasks j ON j.id = t.judging_task_id AND j.mode = 'live'
        WHERE t.organization_id = $1 AND t.user_id = $2
        GROUP BY t.work_kind, t.modality, t.set_size
        ORDER BY t.work_kind, t.modality NULLS FIRST, t.set_size`,
      [organizationId, userId],
    );
    const groups = new Map<
      string,
      { kind: WorkKind; modality: string | null; list: JudgedTrialGroup[] }
    >();
    for (const row of rows) {
      const key = `${row.work_kind}\u0000${row.modality ?? ''}`;
      const group = groups.get(key) ?? { kind: row.work_kind, modality: row.modality, list: [] };
      group.list.push({
        setSize: row.set_size,
        trials: row.trials,
        hits: row.hits,
        scoredTrials: row.scored,
        accuracySum: row.accuracy_sum ?? 0,
        reliabilitySum: row.reliability_sum ?? 0,
      });
      groups.set(key, group);
    }
    return [...groups.values()].map(({ kind, modality, list }) => ({
      kind,
      modality,
      record: trackRecordOf(list),
    }));
  }
}
