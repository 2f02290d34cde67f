import { describe, expect, it, vi } from 'vitest';
import type { Member, UsersRepository } from '#auth';
import { newUuid, toPublicId, type Tenant } from '#common';
import type { Sql, Transaction } from '#database';
import type { EventLog, NewEvent } from '#events';
import { AssignmentChanges } from './assignment-changes.js';
import type {
  AssignmentsRepository,
  NewAssignment,
  ReleasedAssignment,
} from './assignments.repository.js';
import { AssignmentsService } from './assignments.service.js';
import type { Assignment, AssignmentStatus, Tasking } from './tasking.js';
import type { WorkTaskingsRepository } from './work-taskings.repository.js';
import { refusal } from '#common/testing';

/**
 * The analyst's side of blind tasking, with the repositories, the people and
 * the event log faked (AssignmentChanges is the real one): declining hands
 * the place on to the least loaded free analyst, or brings the work's
 * deadline forward when nobody is free and nobody is left to submit; losing
 * the analyst role hands on every place at once.
 */

/** An event as the faked log takes it. */
type Appended = [Transaction, Tenant, string, Record<string, unknown>, string | null];

const tenant: Tenant = { organizationId: newUuid(), mode: 'live' };
const tx = { open: true } as unknown as Transaction;
const member = { userId: newUuid(), organizationId: tenant.organizationId } as Member;

function tasking(overrides: Partial<Tasking> = {}): Tasking {
  const now = new Date();
  return {
    id: newUuid(),
    organizationId: tenant.organizationId,
    mode: tenant.mode,
    kind: 'analysis',
    workId: newUuid(),
    referenceNumber: '1234-5678',
    target: 'The old mill',
    commitment: 'c'.repeat(64),
    nonce: 'n'.repeat(32),
    targetId: null,
    modality: null,
    questionType: 'comprehensive',
    durationMinutes: 60,
    analystCount: 2,
    judging: false,
    decoyCount: 4,
    deadline: new Date(now.getTime() + 3_600_000),
    closedAt: null,
    createdAt: now,
    ...overrides,
  };
}

function held(on: Tasking = tasking()): Assignment {
  return {
    id: newUuid(),
    userId: member.userId,
    status: 'assigned',
    deadline: on.deadline,
    descriptors: null,
    latitude: null,
    longitude: null,
    notes: null,
    confidence: null,
    submittedAt: null,
    declinedAt: null,
    createdAt: on.createdAt,
    updatedAt: on.createdAt,
    eventSequence: 1,
    sketches: [],
    tasking: on,
  };
}

interface World {
  own?: Assignment | null;
  status?: AssignmentStatus | null;
  /** The organisation's active analysts, with their open assignments. */
  analysts?: Record<string, number>;
  /** Who is on the declined work, the decliner included. */
  onWork?: string[];
  /** Assignments on the work still waiting for a submission, after the decline. */
  waiting?: number;
  released?: ReleasedAssignment[];
}

function world(options: World = {}) {
  const analysts = options.analysts ?? {};
  const assignments = {
    findOwn: vi.fn(() => Promise.resolve(options.own ?? null)),
    lockStatus: vi.fn(() => Promise.resolve(options.status ?? null)),
    decline: vi.fn(() => Promise.resolve()),
    nextEventSequence: vi.fn(() => Promise.resolve(2)),
    userIdsOn: vi.fn(() => Promise.resolve(options.onWork ?? [member.userId])),
    userIdsOnEach: vi.fn((_tenant: Tenant, ids: readonly string[]) =>
      Promise.resolve(new Map(ids.map((id) => [id, new Set([member.userId])]))),
    ),
    openCounts: vi.fn((_tenant: Tenant, ids: readonly string[]) =>
      Promise.resolve(new Map(ids.map((id) => [id, analysts[id]!]))),
    ),
    insert: vi.fn(() => Promise.resolve()),
    countWaitingOn: vi.fn(() => Promise.resolve(options.waiting ?? 0)),
    releaseAllHeldBy: vi.fn(() => Promise.resolve(options.released ?? [])),
    insertManyIfFree: vi.fn((_tx: Transaction, _tenant: Tenant, picks: readonly NewAssignment[]) =>
      Promise.resolve(new Set(picks.map((p) => p.id))),
    ),
  };
  const taskings = {
    bringDeadlineForward: vi.fn(() => Promise.resolve()),
    lockOpenHeldBy: vi.fn((_tx: Transaction, asked: Tenant) =>
      Promise.resolve(
        asked.mode === 'live' ? (options.released ?? []).map((r) => r.tasking.id) : [],
      ),
    ),
    bringDeadlinesForwardWhereNoneWaiting: vi.fn(() => Promise.resolve()),
  };
  const users = {
    activeAnalystIds: vi.fn((_org: string, except: readonly string[]) =>
      Promise.resolve(Object.keys(analysts).filter((id) => !except.includes(id))),
    ),
  };
  const events = {
    append: vi.fn((..._event: Appended) => Promise.resolve('evt')),
    appendMany: vi.fn((_tx: Transaction, _events: NewEvent[]) => Promise.resolve()),
  };
  const sql = { transaction: (work: (tx: Transaction) => Promise<unknown>) => work(tx) };
  const changes = new AssignmentChanges(
    assignments as unknown as AssignmentsRepository,
    taskings as unknown as WorkTaskingsRepository,
    users as unknown as UsersRepository,
    events as unknown as EventLog,
  );
  const service = new AssignmentsService(
    sql as unknown as Sql,
    assignments as unknown as AssignmentsRepository,
    changes,
  );
  return { service, assignments, taskings, users, events };
}

describe('AssignmentsService.decline', () => {
  it('answers 404 for an assignment that is not the member’s own', async () => {
    const { service, assignments } = world({ own: null });
    const id = toPublicId('assignment', newUuid());
    expect((await refusal(service.decline(member, 'live', id, null, null))).code).toBe('NOT_FOUND');
    expect(assignments.decline).not.toHaveBeenCalled();
  });

  it('refuses an assignment no longer waiting for its submission, naming its status', async () => {
    const own = held();
    for (const status of ['submitted', 'declined', 'expired'] as const) {
      const { service, assignments } = world({ own, status });
      const error = await refusal(
        service.decline(member, 'live', toPublicId('assignment', own.id), null, null),
      );
      expect(error.code).toBe('CONFLICT');
      expect(error.details.field).toBe('status');
      expect(assignments.decline).not.toHaveBeenCalled();
    }
  });

  it('hands the place to the least loaded free analyst not already on the work, with the same deadline', async () => {
    const own = held();
    const [colleague, busy, idle] = [newUuid(), newUuid(), newUuid()];
    const { service, assignments, users, events, taskings } = world({
      own,
      status: 'assigned',
      analysts: { [colleague]: 0, [busy]: 3, [idle]: 1 },
      onWork: [member.userId, colleague],
    });

    await service.decline(member, 'live', toPublicId('assignment', own.id), 'travelling', 'req_1');

    expect(assignments.decline).toHaveBeenCalledWith(
      tx,
      tenant,
      own.id,
      'travelling',
      expect.any(Date),
    );
    expect(users.activeAnalystIds).toHaveBeenCalledWith(
      tenant.organizationId,
      [member.userId, colleague],
      tx,
    );
    expect(assignments.insert).toHaveBeenCalledWith(
      tx,
      tenant,
      expect.objectContaining({ taskingId: own.tasking.id, userId: idle, deadline: own.deadline }),
      expect.any(Date),
    );
    expect(events.append.mock.calls.map((call) => [call[2], call[3].analyst_id])).toEqual([
      ['assignment.declined', toPublicId('analyst', member.userId)],
      ['assignment.created', toPublicId('analyst', idle)],
    ]);
    expect(taskings.bringDeadlineForward).not.toHaveBeenCalled();
  });

  it('brings the deadline forward when nobody is free and nobody left on the work has yet to submit', async () => {
    const own = held();
    const { service, taskings, assignments } = world({ own, status: 'assigned', waiting: 0 });
    await service.decline(member, 'live', toPublicId('assignment', own.id), null, null);
    expect(assignments.insert).not.toHaveBeenCalled();
    expect(taskings.bringDeadlineForward).toHaveBeenCalledWith(
      tx,
      tenant,
      own.tasking.id,
      expect.any(Date),
    );
  });

  it('keeps the deadline while someone on the work has yet to submit', async () => {
    const own = held();
    const { service, taskings } = world({ own, status: 'assigned', waiting: 1 });
    await service.decline(member, 'live', toPublicId('assignment', own.id), null, null);
    expect(taskings.bringDeadlineForward).not.toHaveBeenCalled();
  });
});

describe('AssignmentsService.releaseOpenAssignments', () => {
  function released(on: Tasking, minutesAgo: number): ReleasedAssignment {
    return {
      id: newUuid(),
      deadline: on.deadline,
      sequence: 2,
      createdAt: new Date(Date.now() - minutesAgo * 60_000),
      tasking: on,
    };
  }

  it('hands every place on at once, spreading them over the free analysts, oldest work first', async () => {
    const [older, newer] = [tasking(), tasking()];
    const [idle, quiet, busy] = [newUuid(), newUuid(), newUuid()];
    const { service, assignments, events, taskings } = world({
      analysts: { [idle]: 0, [quiet]: 0, [busy]: 5 },
      released: [released(newer, 5), released(older, 50)],
    });

    expect(
      await service.releaseOpenAssignments(tenant.organizationId, member.userId, 'req_2'),
    ).toBe(2);

    const picks = assignments.insertManyIfFree.mock.calls[0]![2];
    expect(picks.map((p) => p.taskingId)).toEqual([older.id, newer.id]);
    // Counting the place just given: each of the two least loaded takes one, the busy one none.
    expect(new Set(picks.map((p) => p.userId))).toEqual(new Set([idle, quiet]));
    const types = events.appendMany.mock.calls[0]![1].map((e) => e.type);
    expect(types).toEqual([
      'assignment.declined',
      'assignment.created',
      'assignment.declined',
      'assignment.created',
    ]);
    expect(taskings.bringDeadlinesForwardWhereNoneWaiting).not.toHaveBeenCalled();
  });

  it('brings forward the deadlines of the work nobody could take over', async () => {
    const on = tasking();
    const { service, taskings, events } = world({ analysts: {}, released: [released(on, 5)] });
    expect(await service.releaseOpenAssignments(tenant.organizationId, member.userId, null)).toBe(
      1,
    );
    expect(taskings.bringDeadlinesForwardWhereNoneWaiting).toHaveBeenCalledWith(
      tx,
      tenant,
      [on.id],
      expect.any(Date),
    );
    expect(events.appendMany.mock.calls[0]![1].map((e) => e.type)).toEqual(['assignment.declined']);
  });
});
