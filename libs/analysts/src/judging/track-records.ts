import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { JudgedTrialsRepository, type TrialFilter } from './judged-trials.repository.js';
import type { WorkKind } from './judging-task.js';
import { trackRecordOf, type JudgedTrialGroup, type TrackRecord } from './track-record.js';

/** Which trials a track record sums: all, or one kind of work and/or one modality (null: none given). */
export type TrackRecordFilter = TrialFilter;

/**
 * Analysts' track records, summed from `judged_trials` — live work only:
 * judging tasks of the sandbox never count (the trials are read through
 * their tasks' mode, so that holds even if one were opened there).
 */
@Injectable()
export class TrackRecords {
  constructor(private readonly trials: JudgedTrialsRepository) {}

  /** Every requested user is in the answer, with an empty record when they have no trials. */
  async of(
    organizationId: string,
    userIds: readonly string[],
    filter: TrackRecordFilter = {},
  ): Promise<Map<string, TrackRecord>> {
    const groups = new Map<string, JudgedTrialGroup[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return new Map();
    for (const { userId, group } of await this.trials.groupsBySetSize(
      live(organizationId),
      userIds,
      filter,
    )) {
      groups.get(userId)?.push(group);
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
    const groups = new Map<
      string,
      { kind: WorkKind; modality: string | null; list: JudgedTrialGroup[] }
    >();
    for (const row of await this.trials.groupsByKindAndModality(live(organizationId), userId)) {
      const key = `${row.kind}\u0000${row.modality ?? ''}`;
      const group = groups.get(key) ?? { kind: row.kind, modality: row.modality, list: [] };
      group.list.push(row.group);
      groups.set(key, group);
    }
    return [...groups.values()].map(({ kind, modality, list }) => ({
      kind,
      modality,
      record: trackRecordOf(list),
    }));
  }
}

/** Track records count the organisation's live work only. */
function live(organizationId: string): Tenant {
  return { organizationId, mode: 'live' };
}
