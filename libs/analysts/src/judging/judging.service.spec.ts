import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { UsersRepository } from '#auth';
import { httpStatusOf, newUuid, toPublicId, type Tenant } from '#common';
import type { Sql, Transaction } from '#database';
import type { EventLog } from '#events';
import type { PoolTarget } from '../targets/target.js';
import type { TargetPool } from '../targets/target-pool.js';
import type { AssignmentsRepository, JudgedSubmission } from '../tasking/assignments.repository.js';
import { DRAW_SAMPLE } from './decoy-pool.js';
import type { JudgedTrialsRepository } from './judged-trials.repository.js';
import type { JudgeCaller, JudgedWork, JudgingTask, StoredCandidate } from './judging-task.js';
import type { JudgingTasksRepository, NewJudgingTask } from './judging-tasks.repository.js';
import { JudgingService } from './judging.service.js';
import { refusal } from '#common/testing';

/**
 * Blind judging, with the judging and trial repositories, the assignments,
 * the people, the target pool and the event log faked: who may judge a
 * piece of work, what the judging set holds, what is refused of a ranking,
 * and the judged trial each analyst gets from it.
 */

const tenant: Tenant = { organizationId: newUuid(), mode: 'live' };
const tx = { open: true } as unknown as Transaction;
/** An event as the faked log takes it. */
type Appended = [Transaction, Tenant, string, Record<string, unknown>, string | null];
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function poolTarget(overrides: Partial<PoolTarget> = {}): PoolTarget {
  return {
    id: newUuid(),
    description: `Decoy ${Math.random()}`,
    descriptors: ['water'],
    latitude: 10,
    longitude: 20,
    photos: [{ id: newUuid(), status: 'fetched', contentType: 'image/png' }],
    ...overrides,
  };
}

interface World {
  /** The pool as drawDecoys returns it. */
  pool?: PoolTarget[];
  /** Who worked on the tasking. */
  workers?: string[];
  /** The organisation's judges (those who may judge), with their pending tasks. */
  judges?: Record<string, number>;
  /** What lock finds when ranking. */
  task?: JudgingTask | null;
  submissions?: JudgedSubmission[];
  /** Tasks awaiting a judge, with the tasking each is locked with (null: taken meanwhile). */
  waiting?: Record<string, string | null>;
}

function world(options: World = {}) {
  const judges = options.judges ?? {};
  const tasks = {
    insert: vi.fn((_tx: Transaction, _tenant: Tenant, _task: NewJudgingTask) => Promise.resolve()),
    pendingCounts: vi.fn((_tenant: Tenant, ids: readonly string[]) =>
      Promise.resolve(new Map(ids.map((id) => [id, judges[id]!]))),
    ),
    lock: vi.fn(() => Promise.resolve(options.task ?? null)),
    recordRanking: vi.fn(() => Promise.resolve()),
    awaitingJudge: vi.fn(() => Promise.resolve(Object.keys(options.waiting ?? {}))),
    lockAwaitingJudge: vi.fn((_tx: Transaction, _tenant: Tenant, id: string) =>
      Promise.resolve(options.waiting?.[id] ?? null),
    ),
    giveToJudge: vi.fn(() => Promise.resolve()),
  };
  const trials = {
    insert: vi.fn((..._trial: Parameters<JudgedTrialsRepository['insert']>) => Promise.resolve()),
  };
  const workers = options.workers ?? [];
  const assignments = {
    userIdsOn: vi.fn((_tenant: Tenant, _taskingId: string, _on?: unknown) =>
      Promise.resolve(workers),
    ),
    judgedSubmissionsOn: vi.fn(() => Promise.resolve(options.submissions ?? [])),
  };
  const users = {
    eligibleJudgeIds: vi.fn((_org: string, except: readonly string[]) =>
      Promise.resolve(Object.keys(judges).filter((id) => !except.includes(id))),
    ),
  };
  const events = { append: vi.fn((..._event: Appended) => Promise.resolve('evt')) };
  const pool = {
    drawDecoys: vi.fn(() => Promise.resolve(options.pool ?? [])),
    count: vi.fn(() => Promise.resolve(options.pool?.length ?? 0)),
    get: vi.fn((_tenant: Tenant, id: string) =>
      Promise.resolve(options.pool?.find((t) => t.id === id) ?? null),
    ),
  };
  const sql = { transaction: (work: (tx: Transaction) => Promise<unknown>) => work(tx) };
  const judging = new JudgingService(
    sql as unknown as Sql,
    tasks as unknown as JudgingTasksRepository,
    trials as unknown as JudgedTrialsRepository,
    assignments as unknown as AssignmentsRepository,
    users as unknown as UsersRepository,
    events as unknown as EventLog,
    pool as unknown as TargetPool,
  );
  return { judging, tasks, trials, assignments, users, events, pool };
}

const work: JudgedWork = {
  taskingId: newUuid(),
  kind: 'session',
  workPublicId: toPublicId('session', newUuid()),
  modality: 'visual',
  decoyCount: 3,
  targetId: null,
  truth: {
    description: 'The lighthouse at Cape Wrath',
    descriptors: ['tall', 'water'],
    latitude: null,
    longitude: null,
  },
};

describe('JudgingService.assertDecoysAvailable', () => {
  it('refuses judged work with 409 naming decoy_count when the pool is too small', async () => {
    const { judging, pool } = world({ pool: [poolTarget(), poolTarget()] });
    const excluded = newUuid();
    const error = await refusal(judging.assertDecoysAvailable(tenant, 3, excluded));
    expect(error.code).toBe('CONFLICT');
    expect(error.details).toMatchObject({ field: 'decoy_count', available: 2 });
    expect(pool.count).toHaveBeenCalledWith(tenant, excluded);
    await judging.assertDecoysAvailable(tenant, 2, excluded);
  });
});

describe('JudgingService.open', () => {
  it('sets the true target among decoys from the pool, each with a random id, and records which is true', async () => {
    const decoys = [poolTarget(), poolTarget(), poolTarget(), poolTarget(), poolTarget()];
    const { judging, tasks, pool } = world({ pool: decoys });

    const task = await judging.open(tx, tenant, work, 'req_1');

    expect(pool.drawDecoys).toHaveBeenCalledWith(tx, tenant, DRAW_SAMPLE, null);
    const inserted = tasks.insert.mock.calls[0]![2];
    expect(inserted.candidates).toHaveLength(work.decoyCount + 1);
    expect(inserted.candidates).toEqual(task.candidates);
    const truth = inserted.candidates.find((c) => c.id === inserted.trueCandidateId)!;
    expect(truth).toMatchObject({
      target_id: null,
      description: work.truth.description,
      descriptors: work.truth.descriptors,
      photo_ids: [],
    });
    const shown = inserted.candidates.filter((c) => c !== truth);
    expect(new Set(shown.map((c) => c.target_id)).size).toBe(work.decoyCount);
    for (const decoy of shown) {
      expect(decoys.map((d) => d.id)).toContain(decoy.target_id);
    }
    // Random ids: the order they were made in says nothing of which is true.
    for (const candidate of inserted.candidates) expect(candidate.id).toMatch(UUID_V4);
  });

  it('takes the truth of work about a pool target from the pool, and never draws it as a decoy', async () => {
    const pooled = poolTarget({ description: 'Pool lighthouse', descriptors: ['tall'] });
    const others = [poolTarget(), poolTarget(), poolTarget()];
    const { judging, tasks, pool } = world({ pool: [pooled, ...others] });
    pool.drawDecoys.mockResolvedValueOnce(others);

    await judging.open(tx, tenant, { ...work, targetId: pooled.id }, null);

    expect(pool.drawDecoys).toHaveBeenCalledWith(tx, tenant, DRAW_SAMPLE, pooled.id);
    const inserted = tasks.insert.mock.calls[0]![2];
    const truth = inserted.candidates.find((c) => c.id === inserted.trueCandidateId)!;
    expect(truth.target_id).toBe(pooled.id);
    expect(truth.photo_ids).toEqual([pooled.photos[0]!.id]);
    expect(inserted.candidates.filter((c) => c.target_id === pooled.id)).toHaveLength(1);
  });

  it('refuses when the pool cannot give the decoys, writing nothing', async () => {
    const { judging, tasks, events } = world({ pool: [poolTarget()] });
    const error = await refusal(judging.open(tx, tenant, work, null));
    expect(error.details).toMatchObject({ field: 'decoy_count', available: 1 });
    expect(tasks.insert).not.toHaveBeenCalled();
    expect(events.append).not.toHaveBeenCalled();
  });

  it('gives the task to the least loaded judge who did not work on the piece', async () => {
    const [worker, busy, free] = [newUuid(), newUuid(), newUuid()];
    const { judging, tasks, users, events } = world({
      pool: [poolTarget(), poolTarget(), poolTarget()],
      workers: [worker],
      // The analyst is also a judge, and the least loaded one: still never their own work's.
      judges: { [worker]: 0, [busy]: 4, [free]: 1 },
    });

    const task = await judging.open(tx, tenant, work, 'req_2');

    expect(users.eligibleJudgeIds).toHaveBeenCalledWith(tenant.organizationId, [worker], tx);
    expect(task).toMatchObject({ judgeUserId: free, status: 'pending' });
    expect(tasks.insert.mock.calls[0]![2]).toMatchObject({ judgeUserId: free, status: 'pending' });
    const [, , type, data, requestId] = events.append.mock.calls[0]!;
    expect([type, requestId]).toEqual(['judging_task.created', 'req_2']);
    expect(data).toMatchObject({
      judging_task_id: toPublicId('judgingTask', task.id),
      work_id: work.workPublicId,
      judge_id: toPublicId('analyst', free),
      status: 'pending',
      candidate_count: 4,
      sequence: 1,
    });
    // Blind: the announcement says nothing of the truth.
    expect(JSON.stringify(data)).not.toContain(task.trueCandidateId);
    expect(JSON.stringify(data)).not.toContain('Cape Wrath');
  });

  it('leaves the task awaiting a judge when only those who worked on it may judge', async () => {
    const worker = newUuid();
    const { judging, events } = world({
      pool: [poolTarget(), poolTarget(), poolTarget()],
      workers: [worker],
      judges: { [worker]: 0 },
    });
    const task = await judging.open(tx, tenant, work, null);
    expect(task).toMatchObject({ judgeUserId: null, status: 'awaiting_judge' });
    expect(events.append.mock.calls[0]![3]).toMatchObject({
      judge_id: null,
      status: 'awaiting_judge',
    });
  });
});

describe('JudgingService.assignWaitingOf', () => {
  it('gives each waiting task to an eligible judge, skipping those taken meanwhile or with nobody free', async () => {
    const [judge, worker] = [newUuid(), newUuid()];
    const [given, taken, onlyWorker] = [newUuid(), newUuid(), newUuid()];
    const ownTasking = newUuid();
    const { judging, tasks, assignments } = world({
      judges: { [judge]: 0 },
      waiting: { [given]: newUuid(), [taken]: null, [onlyWorker]: ownTasking },
    });
    assignments.userIdsOn.mockImplementation((_tenant: Tenant, taskingId: string) =>
      Promise.resolve(taskingId === ownTasking ? [judge, worker] : [worker]),
    );

    expect(await judging.assignWaitingOf(tenant, null)).toBe(1);
    expect(tasks.giveToJudge).toHaveBeenCalledTimes(1);
    expect(tasks.giveToJudge).toHaveBeenCalledWith(tx, tenant, given, judge);
  });
});

describe('JudgingService.rank', () => {
  const judge = newUuid();
  const caller: JudgeCaller = { ...tenant, userId: judge, isAdmin: false };

  function candidate(descriptors: string[] = []): StoredCandidate {
    return {
      id: randomUUID(),
      target_id: newUuid(),
      description: 'somewhere',
      descriptors,
      latitude: null,
      longitude: null,
      photo_ids: [],
    };
  }

  function pending(overrides: Partial<JudgingTask> = {}): JudgingTask {
    const candidates = [candidate(), candidate(['tall', 'water']), candidate(), candidate()];
    return {
      id: newUuid(),
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      taskingId: newUuid(),
      kind: 'session',
      workPublicId: toPublicId('session', newUuid()),
      modality: 'visual',
      judgeUserId: judge,
      status: 'pending',
      candidates,
      trueCandidateId: candidates[1]!.id,
      ranking: null,
      rankedAt: null,
      eventSequence: 1,
      createdAt: new Date(),
      ...overrides,
    };
  }

  const publicIds = (task: JudgingTask, order: number[]) =>
    order.map((i) => toPublicId('candidate', task.candidates[i]!.id));

  it('answers 404 for a malformed id, an unknown task, or another judge’s task to a judge', async () => {
    const other = pending({ judgeUserId: newUuid() });
    const { judging, tasks } = world({ task: other });
    const id = toPublicId('judgingTask', other.id);
    expect((await refusal(judging.rank(caller, 'jt_nope', [], null))).code).toBe('NOT_FOUND');
    expect(
      (await refusal(judging.rank(caller, id, publicIds(other, [0, 1, 2, 3]), null))).code,
    ).toBe('NOT_FOUND');
    expect(tasks.lock).toHaveBeenCalledWith(tx, caller, other.id);
    const missing = world({ task: null });
    expect((await refusal(missing.judging.rank(caller, id, [], null))).code).toBe('NOT_FOUND');
    expect(tasks.recordRanking).not.toHaveBeenCalled();
  });

  it('lets an admin read another judge’s task but not rank it (403)', async () => {
    const other = pending({ judgeUserId: newUuid() });
    const { judging, tasks } = world({ task: other });
    const error = await refusal(
      judging.rank(
        { ...caller, isAdmin: true },
        toPublicId('judgingTask', other.id),
        publicIds(other, [0, 1, 2, 3]),
        null,
      ),
    );
    expect(error.code).toBe('FORBIDDEN');
    expect(httpStatusOf(error.code)).toBe(403);
    expect(tasks.recordRanking).not.toHaveBeenCalled();
  });

  it('ranks a task once: a ranked, waiting or cancelled task is 409', async () => {
    for (const status of ['ranked', 'awaiting_judge', 'cancelled'] as const) {
      const task = pending({ status });
      const { judging, tasks } = world({ task });
      const error = await refusal(
        judging.rank(
          caller,
          toPublicId('judgingTask', task.id),
          publicIds(task, [0, 1, 2, 3]),
          null,
        ),
      );
      expect(error.code).toBe('CONFLICT');
      expect(error.details.field).toBe('ranking');
      expect(tasks.recordRanking).not.toHaveBeenCalled();
    }
  });

  it('refuses a ranking that does not name every candidate once (400 naming ranking)', async () => {
    const task = pending();
    const { judging, tasks, trials } = world({ task });
    const error = await refusal(
      judging.rank(caller, toPublicId('judgingTask', task.id), publicIds(task, [0, 1, 1]), null),
    );
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.details.field).toBe('ranking');
    expect(tasks.recordRanking).not.toHaveBeenCalled();
    expect(trials.insert).not.toHaveBeenCalled();
  });

  it('records a hit when the true target is ranked first, with a trial for each analyst who submitted', async () => {
    const task = pending();
    const [a, b] = [newUuid(), newUuid()];
    const submissions: JudgedSubmission[] = [
      {
        id: newUuid(),
        userId: a,
        descriptors: ['tall', 'water'],
        latitude: null,
        longitude: null,
        notes: null,
      },
      { id: newUuid(), userId: b, descriptors: null, latitude: null, longitude: null, notes: null },
    ];
    const { judging, tasks, trials, events, assignments } = world({ task, submissions });
    const publicId = toPublicId('judgingTask', task.id);

    const ranked = await judging.rank(caller, publicId, publicIds(task, [1, 3, 0, 2]), 'req_3');

    const order = [1, 3, 0, 2].map((i) => task.candidates[i]!.id);
    expect(tasks.recordRanking).toHaveBeenCalledWith(tx, task, task.id, order, expect.any(Date), 2);
    expect(ranked).toMatchObject({ status: 'ranked', ranking: order, eventSequence: 2 });
    expect(assignments.judgedSubmissionsOn).toHaveBeenCalledWith(task, task.taskingId, tx);
    const written = trials.insert.mock.calls.map((call) => call[2]);
    expect(written).toEqual([
      expect.objectContaining({
        userId: a,
        judgingTaskId: task.id,
        workKind: 'session',
        modality: 'visual',
        hit: true,
        rank: 1,
        setSize: 4,
        saicAccuracy: 1,
      }),
      expect.objectContaining({ userId: b, hit: true, rank: 1, setSize: 4 }),
    ]);
    expect(trials.insert.mock.calls.every((call) => call[1] === tenant.organizationId)).toBe(true);
    expect(events.append).toHaveBeenCalledWith(
      tx,
      task,
      'judging_task.ranked',
      expect.objectContaining({
        judging_task_id: publicId,
        judge_id: toPublicId('analyst', judge),
        hit: true,
        true_rank: 1,
        candidate_count: 4,
        sequence: 2,
      }),
      'req_3',
    );
  });

  it('records a miss at the true target’s rank otherwise', async () => {
    const task = pending();
    const submissions: JudgedSubmission[] = [
      {
        id: newUuid(),
        userId: newUuid(),
        descriptors: ['land'],
        latitude: null,
        longitude: null,
        notes: null,
      },
    ];
    const { judging, trials, events } = world({ task, submissions });
    await judging.rank(
      caller,
      toPublicId('judgingTask', task.id),
      publicIds(task, [0, 2, 1, 3]),
      null,
    );
    expect(trials.insert.mock.calls[0]![2]).toMatchObject({ hit: false, rank: 3 });
    expect(events.append.mock.calls[0]![3]).toMatchObject({ hit: false, true_rank: 3 });
  });

  it('scores no SAIC accuracy when the truth holds no vocabulary descriptor', async () => {
    const task = pending();
    task.candidates[1]!.descriptors = [];
    const submissions: JudgedSubmission[] = [
      {
        id: newUuid(),
        userId: newUuid(),
        descriptors: ['tall'],
        latitude: null,
        longitude: null,
        notes: null,
      },
    ];
    const { judging, trials } = world({ task, submissions });
    await judging.rank(
      caller,
      toPublicId('judgingTask', task.id),
      publicIds(task, [1, 0, 2, 3]),
      null,
    );
    expect(trials.insert.mock.calls[0]![2]).toMatchObject({
      saicAccuracy: null,
      saicReliability: null,
    });
  });
});
