import { Injectable } from '@nestjs/common';
import { UsersRepository } from '#auth';
import { AppError, MODES, newUuid, parsePublicId, toPublicId, type Tenant } from '#common';
import { Sql, type Transaction } from '#database';
import { EventLog } from '#events';
import { TargetPool } from '../targets/index.js';
import { leastLoaded } from '../tasking/analyst-picking.js';
import { AssignmentsRepository } from '../tasking/assignments.repository.js';
import { chooseDecoys, newCandidateId, shapeOf, shuffled } from './candidates.js';
import { candidateSource, DRAW_SAMPLE } from './decoy-pool.js';
import { descriptorScores } from './descriptor-scores.js';
import { JudgedTrialsRepository } from './judged-trials.repository.js';
import type { JudgeCaller, JudgedWork, JudgingTask, StoredCandidate } from './judging-task.js';
import { JudgingTasksRepository } from './judging-tasks.repository.js';
import { parseRanking } from './ranking.js';

/** Awaiting tasks given out per call at most; the periodic run takes the rest. */
const ASSIGN_BATCH = 100;

/**
 * Blind judging (docs/analysts.md, "Blind judging and track records"): when
 * judged work completes, a judge who did not work on it gets the true target
 * and decoys from the pool in a random order, and ranks them; each analyst
 * who submitted gets one judged trial, the rows every track record is
 * summed from.
 */
@Injectable()
export class JudgingService {
  constructor(
    private readonly sql: Sql,
    private readonly tasks: JudgingTasksRepository,
    private readonly trials: JudgedTrialsRepository,
    private readonly assignments: AssignmentsRepository,
    private readonly users: UsersRepository,
    private readonly events: EventLog,
    private readonly pool: TargetPool,
  ) {}

  /**
   * 409 naming `decoy_count` when the pool cannot give `decoyCount` decoys
   * besides the true target: checked when judged work is created, so it
   * does not fail at the end.
   */
  async assertDecoysAvailable(
    tenant: Tenant,
    decoyCount: number,
    excludeTargetId: string | null,
  ): Promise<void> {
    const available = await this.pool.count(tenant, excludeTargetId);
    if (available < decoyCount) throw notEnoughDecoys(decoyCount, available);
  }

  /**
   * Opens the judging task of a piece of work that completed, inside the
   * transaction that completes it (`tx`): draws the decoys, shuffles the
   * candidates, gives the task to a judge (or leaves it `awaiting_judge`) and
   * announces `judging_task.created`.
   */
  async open(
    tx: Transaction,
    tenant: Tenant,
    work: JudgedWork,
    requestId: string | null,
  ): Promise<JudgingTask> {
    // A uniform sample of the pool (all of it, when small), from which decoys shaped like the truth are chosen.
    const pool = (await this.pool.drawDecoys(tx, tenant, DRAW_SAMPLE, work.targetId)).map(
      candidateSource,
    );
    if (pool.length < work.decoyCount) throw notEnoughDecoys(work.decoyCount, pool.length);
    const target = work.targetId === null ? null : await this.pool.get(tenant, work.targetId);
    const fromPool = target === null ? null : candidateSource(target);
    const truth: StoredCandidate = {
      id: newCandidateId(),
      target_id: fromPool?.id ?? null,
      description: work.truth.description,
      descriptors: [...work.truth.descriptors],
      latitude: work.truth.latitude,
      longitude: work.truth.longitude,
      photo_ids: fromPool?.photo_ids ?? [],
    };
    const decoys = chooseDecoys(pool, shapeOf(truth), work.decoyCount).map(
      (target): StoredCandidate => ({
        id: newCandidateId(),
        target_id: target.id,
        description: target.description,
        descriptors: target.descriptors,
        latitude: target.latitude,
        longitude: target.longitude,
        photo_ids: target.photo_ids,
      }),
    );
    const candidates = shuffled([truth, ...decoys]);
    const judge = await this.pickJudge(tx, tenant, work.taskingId);
    const uuid = newUuid();
    const now = new Date();
    const status = judge === null ? 'awaiting_judge' : 'pending';
    await this.tasks.insert(tx, tenant, {
      id: uuid,
      taskingId: work.taskingId,
      judgeUserId: judge,
      status,
      candidates,
      trueCandidateId: truth.id,
      createdAt: now,
    });
    await this.events.append(
      tx,
      tenant,
      'judging_task.created',
      {
        judging_task_id: toPublicId('judgingTask', uuid),
        work_id: work.workPublicId,
        kind: work.kind,
        judge_id: judge === null ? null : toPublicId('analyst', judge),
        status,
        candidate_count: candidates.length,
        created_at: now.toISOString(),
        sequence: 1,
      },
      requestId,
    );
    return {
      id: uuid,
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      taskingId: work.taskingId,
      kind: work.kind,
      workPublicId: work.workPublicId,
      modality: work.modality,
      judgeUserId: judge,
      status,
      candidates,
      trueCandidateId: truth.id,
      ranking: null,
      rankedAt: null,
      eventSequence: 1,
      createdAt: now,
    };
  }

  /**
   * Gives the organisation's `awaiting_judge` tasks to eligible judges (when
   * someone becomes a judge, and periodically), in either mode. Tasks no one
   * may judge yet keep waiting. Returns how many were given out.
   */
  async assignWaiting(organizationId: string, requestId: string | null): Promise<number> {
    let assigned = 0;
    for (const mode of MODES) {
      assigned += await this.assignWaitingOf({ organizationId, mode }, requestId);
    }
    return assigned;
  }

  /** As assignWaiting, for one tenant's tasks. */
  async assignWaitingOf(tenant: Tenant, _requestId: string | null): Promise<number> {
    const waiting = await this.tasks.awaitingJudge(tenant, ASSIGN_BATCH);
    let assigned = 0;
    for (const id of waiting) {
      const given = await this.sql.transaction(async (tx) => {
        const taskingId = await this.tasks.lockAwaitingJudge(tx, tenant, id);
        if (taskingId === null) return false;
        const judge = await this.pickJudge(tx, tenant, taskingId);
        if (judge === null) return false;
        await this.tasks.giveToJudge(tx, tenant, id, judge);
        return true;
      });
      if (given) assigned += 1;
    }
    return assigned;
  }

  /**
   * The judge's ranking of the candidates, best first. Only the task's judge
   * (others 404; an admin who may read it 403), only while `pending` (409).
   * Stores it and one judged trial per analyst who submitted, and announces
   * `judging_task.ranked`, in one transaction.
   */
  async rank(
    caller: JudgeCaller,
    publicId: string,
    ranking: readonly string[],
    requestId: string | null,
  ): Promise<JudgingTask> {
    const uuid = parsePublicId('judgingTask', publicId);
    if (uuid === null) throw AppError.notFound('judging task', publicId);
    return this.sql.transaction(async (tx) => {
      const task = await this.tasks.lock(tx, caller, uuid);
      if (!task) throw AppError.notFound('judging task', publicId);
      if (task.judgeUserId !== caller.userId) {
        if (!caller.isAdmin) throw AppError.notFound('judging task', publicId);
        throw new AppError('FORBIDDEN', 'Only the judge of a judging task ranks it', {
          field: 'judging_task_id',
          issue: 'this task is another judge’s; an admin may read it but not rank it',
        });
      }
      if (task.status !== 'pending') {
        throw new AppError('CONFLICT', `The judging task is ${task.status}`, {
          field: 'ranking',
          issue: `already ${task.status}: a task is ranked once`,
        });
      }
      const order = parseRanking(
        ranking,
        task.candidates.map((c) => c.id),
      );
      const now = new Date();
      const sequence = task.eventSequence + 1;
      await this.tasks.recordRanking(tx, task, task.id, order, now, sequence);
      const trueRank = order.indexOf(task.trueCandidateId) + 1;
      await this.recordTrials(tx, task, trueRank, now);
      await this.events.append(
        tx,
        task,
        'judging_task.ranked',
        {
          judging_task_id: publicId,
          work_id: task.workPublicId,
          kind: task.kind,
          judge_id: toPublicId('analyst', caller.userId),
          status: 'ranked',
          hit: trueRank === 1,
          true_rank: trueRank,
          candidate_count: task.candidates.length,
          ranked_at: now.toISOString(),
          sequence,
        },
        requestId,
      );
      return { ...task, status: 'ranked', ranking: order, rankedAt: now, eventSequence: sequence };
    });
  }

  /** One judged trial per analyst whose assignment on the tasking holds a submission. */
  private async recordTrials(
    tx: Transaction,
    task: JudgingTask,
    trueRank: number,
    judgedAt: Date,
  ): Promise<void> {
    const truth = task.candidates.find((c) => c.id === task.trueCandidateId)!;
    for (const { userId, descriptors } of await this.assignments.judgedSubmissionsOn(
      task,
      task.taskingId,
      tx,
    )) {
      const scores = descriptorScores(truth.descriptors, descriptors ?? []);
      await this.trials.insert(tx, task.organizationId, {
        // A UUIDv7 like every key; a judged trial has no public id of its own.
        id: newUuid(),
        organizationId: task.organizationId,
        judgingTaskId: task.id,
        userId,
        workKind: task.kind,
        modality: task.modality,
        hit: trueRank === 1,
        rank: trueRank,
        setSize: task.candidates.length,
        saicAccuracy: scores?.accuracy ?? null,
        saicReliability: scores?.reliability ?? null,
        judgedAt,
      });
    }
  }

  /**
   * The eligible judge of a tasking, least loaded first (fewest `pending`
   * judging tasks), ties at random: a member libs/auth says may judge (the
   * `judge` role, not disabled, not waiting on an invitation) holding no
   * assignment on the tasking — whoever worked on the piece of work never
   * judges it.
   */
  private async pickJudge(
    tx: Transaction,
    tenant: Tenant,
    taskingId: string,
  ): Promise<string | null> {
    const workers = await this.assignments.userIdsOn(tenant, taskingId, tx);
    const eligible = await this.users.eligibleJudgeIds(tenant.organizationId, workers, tx);
    const [judge] = leastLoaded(await this.tasks.pendingCounts(tenant, eligible, tx), 1);
    return judge ?? null;
  }
}

function notEnoughDecoys(wanted: number, available: number): AppError {
  return new AppError(
    'CONFLICT',
    `The target pool holds ${available} target${available === 1 ? '' : 's'} to draw decoys from; ${wanted} are needed`,
    {
      field: 'decoy_count',
      issue: `needs ${wanted} decoy${wanted === 1 ? '' : 's'} from the target pool besides the true target, which holds ${available}: add targets with POST /v2/targets, or ask for fewer decoys`,
      available,
    },
  );
}
