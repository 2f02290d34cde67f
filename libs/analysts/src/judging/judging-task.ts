import type { Tenant } from '#common';

/** The kinds of work that can be judged. */
export const WORK_KINDS = ['session', 'analysis', 'dowsing'] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

/** awaiting_judge (no eligible judge yet) → pending (a judge has it) → ranked; cancelled with its work. */
export const JUDGING_TASK_STATUSES = ['awaiting_judge', 'pending', 'ranked', 'cancelled'] as const;
export type JudgingTaskStatus = (typeof JUDGING_TASK_STATUSES)[number];

/**
 * One candidate as stored in `judging_tasks.candidates` (snake_case jsonb):
 * everything about it, the pool target it came from included. The judge
 * sees `blindCandidates` of these, never this.
 */
export interface StoredCandidate {
  /** A random UUID (v4, not time-ordered: ids must not tell the order they were made in). */
  id: string;
  /** The pool target, or null for a true target that exists only as the work's text. */
  target_id: string | null;
  description: string;
  descriptors: string[];
  latitude: number | null;
  longitude: number | null;
  /** The pool target's fetched photos, in its order. */
  photo_ids: string[];
}

/** A judging task as the service reads it. */
export interface JudgingTask {
  id: string;
  organizationId: string;
  mode: Tenant['mode'];
  taskingId: string;
  kind: WorkKind;
  /** The work's public id (`sess_…`, `anal_…`, `dowse_…`); never shown to the judge. */
  workPublicId: string;
  modality: string | null;
  judgeUserId: string | null;
  status: JudgingTaskStatus;
  /** In the order the judge sees them. */
  candidates: StoredCandidate[];
  trueCandidateId: string;
  ranking: string[] | null;
  rankedAt: Date | null;
  eventSequence: number;
  createdAt: Date;
}

/** The truth of a piece of work, as its tasking holds it. */
export interface JudgedTruth {
  description: string;
  descriptors: string[];
  latitude: number | null;
  longitude: number | null;
}

/** What `JudgingService.open` needs of the work that completed. */
export interface JudgedWork {
  taskingId: string;
  kind: WorkKind;
  workPublicId: string;
  modality: string | null;
  decoyCount: number;
  /** The pool target the work was about, when it came from the pool. */
  targetId: string | null;
  truth: JudgedTruth;
}

/** The person ranking: their account and the tenant of their token. */
export interface JudgeCaller extends Tenant {
  userId: string;
  /** Admins may read every judging task of the organisation; they rank only their own. */
  isAdmin: boolean;
}
