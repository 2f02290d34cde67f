import type { Transaction } from '#database';
import { Injectable } from '@nestjs/common';
import { requireMember, type Member } from '#auth';
import { AppError, toPublicId, type Tenant } from '#common';
import { JudgingService } from '../judging/judging.service.js';
import { TrackRecords } from '../judging/track-records.js';
import { TargetPool } from '../targets/target-pool.js';
import { type RecordForResults, type SubmissionForResults } from './combine-submissions.js';
import {
  type Assignment,
  type SubmissionProgress,
  type Tasking,
  type TaskingRequest,
} from './tasking.js';
import { SubmittedSketches } from './submitted-sketches.js';
import { AssignmentsService } from './assignments.service.js';
import { TaskingService } from './tasking.service.js';

/** How a create request asks for its work to be done by people (absent: the default engine). */
export interface WorkPeople {
  engine?: 'simulated' | 'analyst' | undefined;
  analystIds?: string[] | undefined;
  judging?: boolean | undefined;
  decoyCount?: number | undefined;
  /** Public id of a pool target the work is about (`tgt_…`). */
  targetId?: string | undefined;
}

/** The tasking fields of work whose request also sets how many analysts and the deadline (analyses, dowsing). */
export interface TimedWorkPeople extends WorkPeople {
  analystCount?: number | undefined;
  /** Minutes the analysts have (the deadline). */
  durationMinutes?: number | undefined;
}

/** What people are asked, checked: the kind's own fields (work id, target, …) complete it. */
export type PreparedTasking = Pick<
  TaskingRequest,
  'analystCount' | 'analystIds' | 'judging' | 'decoyCount' | 'targetId'
>;

/** What combining a tasking's submissions starts from (AnalystWork.inputs). */
export interface CombiningInputs {
  submissions: Assignment[];
  forCombining: SubmissionForResults[];
  /** By analyst id (`analyst_…`). */
  records: Map<string, RecordForResults>;
  /** Chance: 1 / (decoys + 1). */
  p0: number;
}

/** The analysts' judged trials pooled: hits, trials and their mean chance baseline (p0 when none). */
export function pooledTrials(
  records: ReadonlyMap<string, RecordForResults>,
  p0: number,
): { hits: number; trials: number; p0: number } {
  let hits = 0;
  let trials = 0;
  let baselines = 0;
  for (const record of records.values()) {
    hits += record.hits;
    trials += record.trials;
    baselines += record.baseline * record.trials;
  }
  return { hits, trials, p0: trials > 0 ? baselines / trials : p0 };
}

/**
 * The people's side of work done by people (docs/analysts.md), for the
 * lifecycle every kind shares (AnalystLifecycle in libs/work): who may
 * submit, the submissions with the analysts' track records to combine them
 * by, and blind judging of the completed work.
 */
@Injectable()
export class AnalystWork {
  constructor(
    private readonly tasking: TaskingService,
    readonly assignments: AssignmentsService,
    readonly sketches: SubmittedSketches,
    private readonly judging: JudgingService,
    private readonly trackRecords: TrackRecords,
    private readonly pool: TargetPool,
  ) {}

  /**
   * The person submitting on a piece of work, asked for only once the work is
   * known to take submissions. Work of another engine is 404 to a person —
   * nobody holds an assignment on it, and a person learns nothing of work
   * that is not theirs, as for an id that does not exist — and 409 naming
   * `engine` to a credential that is no person (which may read the work
   * anyway); for analyst work, a caller who is no person is 403.
   */
  submitter(
    work: { engine: string; noun: string; publicId: string },
    caller: Member | undefined,
  ): Member {
    if (work.engine !== 'analyst') {
      if (caller !== undefined) throw AppError.notFound(work.noun, work.publicId);
      throw new AppError(
        'CONFLICT',
        `The ${work.noun} ${work.publicId} is done by the ${work.engine} engine, which makes its own results`,
        {
          field: 'engine',
          issue: `submissions are taken only for work of the analyst engine; this one is ${work.engine}`,
        },
      );
    }
    return requireMember(caller);
  }

  /**
   * What combining a tasking's submissions starts from: the submissions, as
   * combineSubmissions takes them, the analysts' track records on this kind
   * of work (and modality) keyed by analyst id, and chance (1 / judging set).
   */
  async inputs(
    tx: Transaction,
    tenant: Tenant,
    tasking: Tasking,
    modality: string | null,
  ): Promise<CombiningInputs> {
    const submissions = await this.tasking.submissions(tx, tasking);
    const p0 = 1 / (tasking.decoyCount + 1);
    const records = await this.trackRecords.of(
      tenant.organizationId,
      submissions.map((s) => s.userId),
      { kind: tasking.kind, modality },
    );
    const forResults = new Map<string, RecordForResults>();
    for (const [userId, record] of records) {
      forResults.set(toPublicId('analyst', userId), {
        trials: record.trials,
        hits: record.hits,
        theta: record.theta,
        baseline: record.trials > 0 ? record.hitRate.baseline : p0,
        saicAccuracy: record.saicAccuracy,
        saicReliability: record.saicReliability,
        established: record.evidence === 'track_record',
      });
    }
    const forCombining = submissions.map((s) => ({
      analystId: toPublicId('analyst', s.userId),
      descriptors: s.descriptors ?? [],
      point:
        s.latitude !== null && s.longitude !== null
          ? { latitude: s.latitude, longitude: s.longitude }
          : null,
      notes: s.notes,
    }));
    return { submissions, forCombining, records: forResults, p0 };
  }

  /**
   * Opens blind judging of completed work when its tasking asks for it. The
   * true candidate is the pool target the work named (so it looks like the
   * decoys drawn from the same pool), else the work's own target text.
   */
  async judge(
    tx: Transaction,
    tenant: Tenant,
    tasking: Tasking,
    work: { publicId: string; modality: string | null; target: string },
    requestId: string | null,
  ): Promise<void> {
    if (!tasking.judging) return;
    const pooled = tasking.targetId === null ? null : await this.pool.get(tenant, tasking.targetId);
    await this.judging.open(
      tx,
      tenant,
      {
        taskingId: tasking.id,
        kind: tasking.kind,
        workPublicId: work.publicId,
        modality: work.modality,
        decoyCount: tasking.decoyCount,
        targetId: tasking.targetId,
        truth: pooled
          ? {
              description: pooled.description,
              descriptors: pooled.descriptors,
              latitude: pooled.latitude,
              longitude: pooled.longitude,
            }
          : { description: work.target, descriptors: [], latitude: null, longitude: null },
      },
      requestId,
    );
  }
}

/** Progress after a submission: the share of the analysts on the work who have submitted, in whole 10 % steps. */
export function progressStep(progress: Pick<SubmissionProgress, 'submitted' | 'active'>): number {
  return Math.floor((progress.submitted / progress.active) * 10) * 10;
}
