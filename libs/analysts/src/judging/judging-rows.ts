import { toPublicId, type Mode } from '#common';
import type { JudgingTask, JudgingTaskStatus, StoredCandidate, WorkKind } from './judging-task.js';

/** The columns of a judging task with its tasking's kind, work and modality (`j` and `w`). */
export const JUDGING_TASK_SELECT = `j.id, j.organization_id, j.mode, j.tasking_id, w.work_kind, w.work_id,
  w.modality, j.judge_user_id, j.status, j.candidates, j.true_candidate_id, j.ranking, j.ranked_at,
  j.event_sequence, j.created_at
  FROM judging_tasks j JOIN work_taskings w ON w.id = j.tasking_id`;

export interface JudgingTaskRow {
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

export function judgingTaskOf(row: JudgingTaskRow): JudgingTask {
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
