import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, toPublicId, type Tenant } from '#common';
import { Sql, type SqlExecutor } from '#database';
import { EventLog } from '#events';
import { chooseDecoys, newCandidateId, shapeOf, shuffled } from './candidates.js';
import { TargetPool } from '../targets/index.js';
import { candidateSource, DRAW_SAMPLE } from './decoy-pool.js';
import { descriptorScores } from './descriptor-scores.js';
import { JUDGING_TASK_SELECT, judgingTaskOf, type JudgingTaskRow } from './judging-rows.js';
import type { JudgeCaller, JudgedWork, JudgingTask, StoredCandidate } from './judging-task.js';
import { parseRanking } from './ranking.js';

/**
 * The eligible judge of a tasking, least loaded first (fewest `pending`
 * judging tasks), ties at random: a member with the `judge` role, not
 * disabled, not waiting on an invitation, and holding no assignment on the
 * tasking — whoever worked on the piece of work never judges it.
 */
const PICK_JUDGE = `SELECT u.id FROM users u
  WHERE u.organization_id = $1 AND 'judge' = ANY (u.roles)
    AND u.disabled_at IS NULL AND u.invitation_hash IS NULL
    AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.tasking_id = $2 AND a.user_id = u.id)
  ORDER BY (SELECT count(*) FROM judging_tasks j WHERE j.judge_user_id = u.id AND j.status = 'pending'),
    random()
  LIMIT 1`;

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
    tx: SqlExecutor,
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
    const judge = await this.pickJudge(tx, tenant.organizationId, work.taskingId);
    const uuid = newUuid();
    const now = new Date();
    const status = judge === null ? 'awaiting_judge' : 'pending';
    await tx.query(
      `INSERT INTO judging_tasks (id, organization_id, mode, tasking_id, judge_user_id, status,
         candidates, true_candidate_id, event_sequence, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9)`,
      [
        uuid,
        tenant.organizationId,
        tenant.mode,
        work.taskingId,
        judge,
        status,
        JSON.stringify(candidates),
        truth.id,
        now,
      ],
    );
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
   * someone becomes a judge, and periodically). Tasks no one may judge yet
   * keep waiting. Returns how many were given out.
   */
  async assignWaiting(organizationId: string, _requestId: string | null): Promise<number> {
    const waiting = await this.sql.rows<{ id: string }>(
      `SELECT id FROM judging_tasks WHERE organization_id = $1 AND status = 'awaiting_judge'
        ORDER BY created_at, id LIMIT ${ASSIGN_BATCH}`,
      [organizationId],
    );
    let assigned = 0;
    for (const { id } of waiting) {
      const given = await this.sql.transaction(async (tx) => {
        const { rows } = await tx.query<{ tasking_id: string }>(
          `SELECT tasking_id FROM judging_tasks WHERE id = $1 AND status = 'awaiting_judge'
            FOR UPDATE SKIP LOCKED`,
          [id],
        );
        if (!rows[0]) return false;
        const judge = await this.pickJudge(tx, organizationId, rows[0].tasking_id);
        if (judge === null) return false;
        await tx.query(
          `UPDATE judging_tasks SET judge_user_id = $2, status = 'pending' WHERE id = $1`,
          [id, judge],
        );
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
      const { rows } = await tx.query<JudgingTaskRow>(
        `SELECT ${JUDGING_TASK_SELECT}
          WHERE j.id = $1 AND j.organization_id = $2 AND j.mode = $3 FOR UPDATE OF j`,
        [uuid, caller.organizationId, caller.mode],
      );
      if (!rows[0]) throw AppError.notFound('judging task', publicId);
      const task = judgingTaskOf(rows[0]);
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
      await tx.query(
        `UPDATE judging_tasks SET status = 'ranked', ranking = $2, ranked_at = $3, event_sequence = $4
          WHERE id = $1`,
        [task.id, order, now, sequence],
      );
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
    tx: SqlExecutor,
    task: JudgingTask,
    trueRank: number,
    judgedAt: Date,
  ): Promise<void> {
    const truth = task.candidates.find((c) => c.id === task.trueCandidateId)!;
    const { rows } = (await tx.query(
      `SELECT user_id, descriptors FROM assignments
        WHERE tasking_id = $1 AND submitted_at IS NOT NULL AND status IN ('submitted', 'completed')`,
      [task.taskingId],
    )) as { rows: { user_id: string; descriptors: string[] | null }[] };
    for (const { user_id: userId, descriptors } of rows) {
      const scores = descriptorScores(truth.descriptors, descriptors ?? []);
      await tx.query(
        `INSERT INTO judged_trials (id, organization_id, judging_task_id, user_id, work_kind, modality,
           hit, rank, set_size, saic_accuracy, saic_reliability, judged_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          // A UUIDv7 like every key; a judged trial has no public id of its own.
          newUuid(),
          task.organizationId,
          task.id,
          userId,
          task.kind,
          task.modality,
          trueRank === 1,
          trueRank,
          task.candidates.length,
          scores?.accuracy ?? null,
          scores?.reliability ?? null,
          judgedAt,
        ],
      );
    }
  }

  private async pickJudge(
    executor: SqlExecutor,
    organizationId: string,
    taskingId: string,
  ): Promise<string | null> {
    const { rows } = (await executor.query(PICK_JUDGE, [organizationId, taskingId])) as {
      rows: { id: string }[];
    };
    return rows[0]?.id ?? null;
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
