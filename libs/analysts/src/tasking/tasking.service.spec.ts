import { describe, expect, it, vi } from 'vitest';
import type { Member, UsersRepository } from '#auth';
import { httpStatusOf, newUuid, toPublicId, type Tenant } from '#common';
import type { AppSettings } from '#config';
import type { Transaction } from '#database';
import type { EventLog } from '#events';
import type { TargetPool } from '../targets/target-pool.js';
import { AssignmentChanges } from './assignment-changes.js';
import type { AssignmentSketchesRepository } from './assignment-sketches.repository.js';
import type { AssignmentHolder, AssignmentsRepository } from './assignments.repository.js';
import { targetCommitment } from './target-commitment.js';
import type { Assignment, SubmissionInput, Tasking, TaskingRequest } from './tasking.js';
import { TaskingService } from './tasking.service.js';
import type { WorkTaskingsRepository } from './work-taskings.repository.js';
import { refusal } from '#common/testing';

/**
 * Blind tasking, the work's side, with the repositories, the people and the
 * event log faked (AssignmentChanges is the real one over the same fakes):
 * who is given the work, what they are told of it, when it is due, which
 * submissions are taken, and how the work closes.
 */

/** An event as the faked log takes it. */
type Appended = [Transaction, Tenant, string, Record<string, unknown>, string | null];

const tenant: Tenant = { organizationId: newUuid(), mode: 'live' };
const tx = { open: true } as unknown as Transaction;
/** The analyst clock runs this many times faster than the wall clock. */
const CLOCK_SCALE = 60;

interface World {
  /** The organisation's active analysts, with their open assignments. */
  analysts?: Record<string, number>;
  /** What lockOnWork finds for the submitting member. */
  held?: Assignment | null;
  /** What closing the tasking says: false when it was closed already. */
  closes?: boolean;
  /** The assignments closing ends unsubmitted. */
  unsubmitted?: AssignmentHolder[];
  inPool?: boolean;
}

function world(options: World = {}) {
  const analysts = options.analysts ?? {};
  const users = {
    hasActiveAnalyst: vi.fn(() => Promise.resolve(Object.keys(analysts).length > 0)),
    activeAnalystsAmong: vi.fn((_org: string, ids: readonly string[]) =>
      Promise.resolve(ids.filter((id) => id in analysts)),
    ),
    activeAnalystIds: vi.fn((_org: string, except: readonly string[]) =>
      Promise.resolve(Object.keys(analysts).filter((id) => !except.includes(id))),
    ),
  };
  // Each assignment's own event sequence, moved on by each of its events.
  const sequences = new Map<string, number>();
  const assignments = {
    openCounts: vi.fn((_tenant: Tenant, ids: readonly string[]) =>
      Promise.resolve(new Map(ids.map((id) => [id, analysts[id]!]))),
    ),
    insert: vi.fn((..._row: Parameters<AssignmentsRepository['insert']>) => Promise.resolve()),
    nextEventSequence: vi.fn((_tx: Transaction, _tenant: Tenant, id: string) => {
      sequences.set(id, (sequences.get(id) ?? 0) + 1);
      return Promise.resolve(sequences.get(id)!);
    }),
    lockOnWork: vi.fn(() => Promise.resolve(options.held ?? null)),
    recordSubmission: vi.fn(() => Promise.resolve()),
    progressOn: vi.fn(() => Promise.resolve({ submitted: 2, active: 3 })),
    find: vi.fn(() =>
      Promise.resolve(options.held ? { ...options.held, status: 'submitted' } : null),
    ),
    completeSubmittedOn: vi.fn(() => Promise.resolve()),
    endUnsubmittedOn: vi.fn((..._call: Parameters<AssignmentsRepository['endUnsubmittedOn']>) =>
      Promise.resolve(options.unsubmitted ?? []),
    ),
  };
  const taskings = {
    insert: vi.fn(() => Promise.resolve()),
    close: vi.fn((..._call: Parameters<WorkTaskingsRepository['close']>) =>
      Promise.resolve(options.closes ?? true),
    ),
  };
  const sketches = { replace: vi.fn(() => Promise.resolve()) };
  const events = { append: vi.fn((..._event: Appended) => Promise.resolve('evt')) };
  const pool = { contains: vi.fn(() => Promise.resolve(options.inPool ?? false)) };
  const changes = new AssignmentChanges(
    assignments as unknown as AssignmentsRepository,
    taskings as unknown as WorkTaskingsRepository,
    users as unknown as UsersRepository,
    events as unknown as EventLog,
  );
  const service = new TaskingService(
    taskings as unknown as WorkTaskingsRepository,
    assignments as unknown as AssignmentsRepository,
    sketches as unknown as AssignmentSketchesRepository,
    changes,
    users as unknown as UsersRepository,
    pool as unknown as TargetPool,
    { analystClockScale: CLOCK_SCALE } as AppSettings,
  );
  return { service, users, assignments, taskings, sketches, events, pool };
}

const workId = newUuid();
function request(overrides: Partial<TaskingRequest> = {}): TaskingRequest {
  return {
    kind: 'session',
    workId,
    workPublicId: toPublicId('session', workId),
    target: 'The lighthouse at Cape Wrath',
    modality: 'visual',
    questionType: 'remote_viewing',
    durationMinutes: 90,
    analystCount: 2,
    judging: false,
    decoyCount: 4,
    targetId: null,
    ...overrides,
  };
}

function tasking(overrides: Partial<Tasking> = {}): Tasking {
  const now = new Date();
  return {
    id: newUuid(),
    organizationId: tenant.organizationId,
    mode: tenant.mode,
    kind: 'session',
    workId,
    referenceNumber: '4821-7305',
    target: 'The lighthouse at Cape Wrath',
    commitment: 'c'.repeat(64),
    nonce: 'n'.repeat(32),
    targetId: null,
    modality: 'visual',
    questionType: 'remote_viewing',
    durationMinutes: 90,
    analystCount: 2,
    judging: false,
    decoyCount: 4,
    deadline: new Date(now.getTime() + 3_600_000),
    closedAt: null,
    createdAt: now,
    ...overrides,
  };
}

function assignment(overrides: Partial<Assignment> = {}): Assignment {
  const on = overrides.tasking ?? tasking();
  return {
    id: newUuid(),
    userId: newUuid(),
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
    ...overrides,
    tasking: on,
  };
}

/** The events written, by type, with their data. */
function written(events: ReturnType<typeof world>['events'], type: string) {
  return events.append.mock.calls.filter((call) => call[2] === type).map((call) => call[3]);
}

describe('TaskingService.engineFor', () => {
  it('gives the sandbox the simulated engine, whatever is asked or whoever is there', async () => {
    const { service, users } = world({ analysts: { [newUuid()]: 0 } });
    const sandbox: Tenant = { ...tenant, mode: 'test' };
    expect(await service.engineFor(sandbox, 'analyst')).toBe('simulated');
    expect(await service.engineFor(sandbox, undefined)).toBe('simulated');
    expect(users.hasActiveAnalyst).not.toHaveBeenCalled();
  });

  it('gives live work the engine asked for, else people when the organisation has an analyst', async () => {
    expect(await world().service.engineFor(tenant, 'analyst')).toBe('analyst');
    expect(
      await world({ analysts: { [newUuid()]: 0 } }).service.engineFor(tenant, 'simulated'),
    ).toBe('simulated');
    expect(await world({ analysts: { [newUuid()]: 0 } }).service.engineFor(tenant, undefined)).toBe(
      'analyst',
    );
    expect(await world().service.engineFor(tenant, undefined)).toBe('simulated');
  });
});

describe('TaskingService.poolTarget', () => {
  it('gives the stored id of a target of the tenant’s pool', async () => {
    const id = newUuid();
    const { service, pool } = world({ inPool: true });
    expect(await service.poolTarget(tenant, toPublicId('target', id), 'target_id')).toBe(id);
    expect(pool.contains).toHaveBeenCalledWith(tenant, id);
  });

  it('refuses a malformed id or a target outside the pool with 400 naming the field', async () => {
    const { service } = world({ inPool: false });
    for (const publicId of ['tgt_nope', toPublicId('target', newUuid())]) {
      const error = await refusal(service.poolTarget(tenant, publicId, 'analyses.2.target_id'));
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.details.field).toBe('analyses.2.target_id');
    }
  });
});

describe('TaskingService.task', () => {
  it('commits to the target, then gives the named analyst and the least loaded others one assignment each', async () => {
    const [named, busy, idle, quiet] = [newUuid(), newUuid(), newUuid(), newUuid()];
    const { service, taskings, assignments, users } = world({
      analysts: { [named]: 7, [busy]: 5, [idle]: 0, [quiet]: 1 },
    });
    const asked = request({ analystCount: 3, analystIds: [toPublicId('analyst', named)] });

    const tasked = await service.task(tx, tenant, asked, 'req_1');

    expect(users.activeAnalystsAmong).toHaveBeenCalledWith(tenant.organizationId, [named], tx);
    // The named analyst is never picked again, however idle.
    expect(users.activeAnalystIds).toHaveBeenCalledWith(tenant.organizationId, [named], tx);
    expect(taskings.insert).toHaveBeenCalledWith(tx, tenant, tasked);
    expect(assignments.insert.mock.calls.map((call) => call[2])).toEqual([
      expect.objectContaining({ taskingId: tasked.id, userId: named, deadline: tasked.deadline }),
      expect.objectContaining({ taskingId: tasked.id, userId: idle, deadline: tasked.deadline }),
      expect.objectContaining({ taskingId: tasked.id, userId: quiet, deadline: tasked.deadline }),
    ]);
    // The tasking row exists before any assignment points at it.
    expect(taskings.insert.mock.invocationCallOrder[0]).toBeLessThan(
      assignments.insert.mock.invocationCallOrder[0]!,
    );
    expect(tasked).toMatchObject({
      kind: 'session',
      workId,
      target: asked.target,
      analystCount: 3,
      closedAt: null,
    });
    expect(tasked.referenceNumber).toMatch(/^\d{4}-\d{4}$/);
  });

  it('commits to the target with a nonce that opens it, and tells the analysts only the commitment', async () => {
    const [a, b] = [newUuid(), newUuid()];
    const { service, events } = world({ analysts: { [a]: 0, [b]: 0 } });
    const asked = request();

    const tasked = await service.task(tx, tenant, asked, 'req_2');

    expect(tasked.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(targetCommitment(tasked.nonce, asked.target)).toBe(tasked.commitment);
    const created = written(events, 'assignment.created');
    expect(created.map((data) => data.analyst_id).sort()).toEqual(
      [toPublicId('analyst', a), toPublicId('analyst', b)].sort(),
    );
    for (const data of created) {
      expect(data).toMatchObject({
        work_id: asked.workPublicId,
        kind: 'session',
        status: 'assigned',
        target_commitment: tasked.commitment,
        target_reference_number: tasked.referenceNumber,
        deadline: tasked.deadline.toISOString(),
        sequence: 1,
      });
      // Blind: nothing the analyst is told carries the target or the nonce that opens it.
      expect(JSON.stringify(data)).not.toContain('Cape Wrath');
      expect(JSON.stringify(data)).not.toContain(tasked.nonce);
    }
    expect(events.append.mock.calls.every((call) => call[0] === tx && call[4] === 'req_2')).toBe(
      true,
    );
  });

  it('sets the deadline the work’s minutes from now on the scaled analyst clock', async () => {
    const { service } = world({ analysts: { [newUuid()]: 0 } });
    const tasked = await service.task(
      tx,
      tenant,
      request({ analystCount: 1, durationMinutes: 120 }),
      null,
    );
    expect(tasked.deadline.getTime() - tasked.createdAt.getTime()).toBe(
      (120 * 60_000) / CLOCK_SCALE,
    );
    expect(service.deadlineFrom(new Date(0), 30).getTime()).toBe((30 * 60_000) / CLOCK_SCALE);
  });

  it('refuses with 409 naming analyst_count when the organisation has too few analysts, writing nothing', async () => {
    const { service, taskings, assignments, events } = world({
      analysts: { [newUuid()]: 0, [newUuid()]: 3 },
    });
    const error = await refusal(service.task(tx, tenant, request({ analystCount: 3 }), null));
    expect(error.code).toBe('CONFLICT');
    expect(httpStatusOf(error.code)).toBe(409);
    expect(error.message).toContain('2 active analysts');
    expect(error.details).toMatchObject({
      field: 'analyst_count',
      issue: expect.stringContaining('at most 2'),
    });
    expect(taskings.insert).not.toHaveBeenCalled();
    expect(assignments.insert).not.toHaveBeenCalled();
    expect(events.append).not.toHaveBeenCalled();
  });

  it('refuses a named analyst who is not an active analyst here with 400 naming that entry', async () => {
    const known = newUuid();
    const { service, taskings } = world({ analysts: { [known]: 0, [newUuid()]: 0 } });
    const stranger = toPublicId('analyst', newUuid());
    const error = await refusal(
      service.task(
        tx,
        tenant,
        request({ analystIds: [toPublicId('analyst', known), stranger] }),
        null,
      ),
    );
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.details.field).toBe('analyst_ids[1]');
    expect(taskings.insert).not.toHaveBeenCalled();
  });

  it('refuses one analyst named twice, or more names than analysts asked for', async () => {
    const a = newUuid();
    const { service } = world({ analysts: { [a]: 0, [newUuid()]: 0 } });
    const twice = await refusal(
      service.task(
        tx,
        tenant,
        request({ analystIds: [toPublicId('analyst', a), toPublicId('analyst', a)] }),
        null,
      ),
    );
    expect(twice.details.field).toBe('analyst_ids[1]');
    const tooMany = await refusal(
      service.task(
        tx,
        tenant,
        request({ analystCount: 1, analystIds: [toPublicId('analyst', a), 'analyst_x'] }),
        null,
      ),
    );
    expect(tooMany.details.field).toBe('analyst_ids');
  });
});

describe('TaskingService.submit', () => {
  const member = { userId: newUuid(), organizationId: tenant.organizationId } as Member;
  const input: SubmissionInput = {
    descriptors: ['tall', 'white', 'coast'],
    coordinates: { latitude: 58.6, longitude: -5.0 },
    notes: 'a tower by the sea',
    confidence: 0.6,
  };

  function submit(service: TaskingService, kind: 'session' | 'dowsing' = 'session', with_ = input) {
    return service.submit(tx, tenant, member, kind, workId, 'sess_public', with_, 'req_3');
  }

  it('answers 404 to a member with no assignment on the work, naming the work’s kind', async () => {
    const { service, assignments } = world({ held: null });
    const error = await refusal(submit(service, 'dowsing'));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('dowsing query');
    expect(assignments.lockOnWork).toHaveBeenCalledWith(
      tx,
      tenant,
      'dowsing',
      workId,
      member.userId,
    );
    expect(assignments.recordSubmission).not.toHaveBeenCalled();
  });

  it('refuses a submission once the deadline has passed or the work is closed', async () => {
    const late = assignment({ deadline: new Date(Date.now() - 1_000) });
    const closed = assignment({ tasking: tasking({ closedAt: new Date() }) });
    for (const held of [late, closed]) {
      const { service, assignments } = world({ held });
      const error = await refusal(submit(service));
      expect(error.code).toBe('CONFLICT');
      expect(error.details.field).toBe('deadline');
      expect(assignments.recordSubmission).not.toHaveBeenCalled();
    }
  });

  it('refuses a submission on an assignment the analyst no longer holds', async () => {
    for (const status of ['declined', 'expired', 'completed', 'cancelled'] as const) {
      const { service, assignments } = world({ held: assignment({ status }) });
      const error = await refusal(submit(service));
      expect(error.code).toBe('CONFLICT');
      expect(error.details.field).toBe('status');
      expect(assignments.recordSubmission).not.toHaveBeenCalled();
    }
  });

  it('records a first submission with its sketches and its event, and says how far the work is', async () => {
    const held = assignment();
    const { service, assignments, sketches, events } = world({ held });
    const sketch = { contentType: 'image/png', bytes: Buffer.from('png'), sha256: 'f'.repeat(64) };

    const progress = await submit(service, 'session', { ...input, sketches: [sketch] });

    expect(assignments.recordSubmission).toHaveBeenCalledWith(
      tx,
      tenant,
      held.id,
      expect.objectContaining({ descriptors: input.descriptors }),
      expect.any(Date),
    );
    expect(sketches.replace).toHaveBeenCalledWith(tx, held.id, [
      { id: expect.any(String), ...sketch },
    ]);
    const [submitted] = written(events, 'assignment.submitted');
    expect(submitted).toMatchObject({
      assignment_id: toPublicId('assignment', held.id),
      analyst_id: toPublicId('analyst', held.userId),
      status: 'submitted',
      amended: false,
    });
    expect(JSON.stringify(submitted)).not.toContain('Cape Wrath');
    expect(assignments.progressOn).toHaveBeenCalledWith(tenant, held.tasking.id, tx);
    expect(progress).toMatchObject({ amended: false, submitted: 2, active: 3 });
    expect(progress.assignment.status).toBe('submitted');
  });

  it('takes an amendment until the deadline, keeping the earlier sketches when none are sent', async () => {
    const { service, sketches, events } = world({ held: assignment({ status: 'submitted' }) });
    const progress = await submit(service);
    expect(progress.amended).toBe(true);
    expect(sketches.replace).not.toHaveBeenCalled();
    expect(written(events, 'assignment.submitted')[0]).toMatchObject({ amended: true });
  });
});

describe('TaskingService.close', () => {
  it('completes the submitted assignments and expires the rest at the deadline, each with its event', async () => {
    const on = tasking();
    const late = { id: newUuid(), userId: newUuid(), deadline: on.deadline };
    const { service, taskings, assignments, events } = world({ unsubmitted: [late] });

    await service.close(tx, on, 'completed', 'req_4');

    expect(taskings.close).toHaveBeenCalledWith(tx, tenant, on.id, expect.any(Date));
    const closedAt = taskings.close.mock.calls[0]![3];
    expect(assignments.completeSubmittedOn).toHaveBeenCalledWith(tx, tenant, on.id, closedAt);
    expect(assignments.endUnsubmittedOn).toHaveBeenCalledWith(
      tx,
      tenant,
      on.id,
      'expired',
      closedAt,
    );
    expect(written(events, 'assignment.expired')).toEqual([
      expect.objectContaining({
        assignment_id: toPublicId('assignment', late.id),
        analyst_id: toPublicId('analyst', late.userId),
        status: 'expired',
        expired_at: closedAt.toISOString(),
      }),
    ]);
  });

  it('cancels the unsubmitted assignments of cancelled work without an event', async () => {
    const on = tasking();
    const { service, assignments, events } = world({
      unsubmitted: [{ id: newUuid(), userId: newUuid(), deadline: on.deadline }],
    });
    await service.close(tx, on, 'cancelled', null);
    expect(assignments.completeSubmittedOn).toHaveBeenCalled();
    expect(assignments.endUnsubmittedOn.mock.calls[0]![3]).toBe('cancelled');
    expect(events.append).not.toHaveBeenCalled();
  });

  it('changes nothing on a tasking closed already', async () => {
    const { service, assignments, events } = world({ closes: false });
    await service.close(tx, tasking(), 'expired', null);
    expect(assignments.completeSubmittedOn).not.toHaveBeenCalled();
    expect(assignments.endUnsubmittedOn).not.toHaveBeenCalled();
    expect(events.append).not.toHaveBeenCalled();
  });
});
