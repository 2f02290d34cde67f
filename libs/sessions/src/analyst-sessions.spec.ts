import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AnalystWork,
  type Assignment,
  type AssignmentsService,
  type SubmissionProgress,
  type SubmittedSketches,
  type Tasking,
  type TaskingService,
} from '#analysts';
import type { Member } from '#auth';
import { newUuid, toPublicId, type Tenant } from '#common';
import type { AppSettings } from '#config';
import type { Transaction } from '#database';
import type { SessionResultsData } from '#engines';
import type { EventLog } from '#events';
import type { VerifiedRecords } from '#history';
import type { VerifiedRecord } from '#statistics';
import { AnalystLifecycle } from '#work';
import { AnalystSessions } from './analyst-sessions.js';
import type { SessionEntity } from './entities/session.entity.js';
import type { SessionsRepository } from './sessions.repository.js';
import { refusal } from '#common/testing';

/**
 * Sessions done by people, from submission to outcome: the real
 * AnalystLifecycle and AnalystWork (combining, judging) over faked tasking,
 * track records and judging, and a faked sessions repository and event log.
 * What each submission moves on, what the last one writes, and how the
 * deadline ends the rest.
 */

const tenant: Tenant = { organizationId: newUuid(), mode: 'live' };
const tx = { open: true } as unknown as Transaction;
/** An event as the faked log takes it. */
type Appended = [Transaction, Tenant, string, Record<string, unknown>, string | null];
const member = { userId: newUuid(), organizationId: tenant.organizationId } as Member;

function stored(overrides: Partial<SessionEntity> = {}): SessionEntity {
  const now = new Date();
  return {
    id: newUuid(),
    organizationId: tenant.organizationId,
    mode: tenant.mode,
    type: 'remote_viewing',
    target: 'The lighthouse at Cape Wrath',
    modality: 'visual',
    durationMinutes: 60,
    privacyLevel: 'private',
    status: 'in_progress',
    progress: 0,
    engine: 'analyst',
    engineVersion: 'analyst-1',
    engineSeed: null,
    results: null,
    confidenceScore: null,
    analystId: null,
    evidence: null,
    failureReason: null,
    eventSequence: 2,
    createdAt: now,
    updatedAt: now,
    startedAt: now,
    completedAt: null,
    estimatedCompletion: now,
    batchId: null,
    analystCount: 3,
    mergedFrom: null,
    ...overrides,
  };
}

function taskingOf(session: SessionEntity, overrides: Partial<Tasking> = {}): Tasking {
  return {
    id: newUuid(),
    organizationId: session.organizationId,
    mode: session.mode,
    kind: 'session',
    workId: session.id,
    referenceNumber: '4821-7305',
    target: session.target,
    commitment: 'c'.repeat(64),
    nonce: 'n'.repeat(32),
    targetId: null,
    modality: session.modality,
    questionType: session.type,
    durationMinutes: session.durationMinutes,
    analystCount: session.analystCount,
    judging: false,
    decoyCount: 4,
    deadline: new Date(Date.now() + 3_600_000),
    closedAt: null,
    createdAt: session.createdAt,
    ...overrides,
  };
}

function submission(tasking: Tasking, overrides: Partial<Assignment> = {}): Assignment {
  return {
    id: newUuid(),
    userId: newUuid(),
    status: 'submitted',
    deadline: tasking.deadline,
    descriptors: ['tall', 'white'],
    latitude: null,
    longitude: null,
    notes: null,
    confidence: null,
    submittedAt: new Date(),
    declinedAt: null,
    createdAt: tasking.createdAt,
    updatedAt: tasking.createdAt,
    eventSequence: 2,
    sketches: [],
    tasking,
    ...overrides,
  };
}

/** A track record in the shape TrackRecords gives it: `hits` of `trials`, established past twenty. */
function record(hits: number, trials: number) {
  return {
    trials,
    hits,
    hitRate: { baseline: 0.2 },
    saicAccuracy: null,
    saicReliability: null,
    theta: (hits + 0.4) / (trials + 2),
    evidence: trials >= 20 ? 'track_record' : 'prior',
  };
}

interface World {
  session: SessionEntity;
  tasking: Tasking;
  /** Submitted / still on the work, after this submission. */
  progress?: { submitted: number; active: number };
  submissions?: Assignment[];
  /** Track records by user id. */
  records?: Map<string, ReturnType<typeof record>>;
  overdue?: Tasking[];
}

function world({ session, tasking, progress, submissions = [], records, overdue }: World) {
  const sessions = {
    find: vi.fn(() => Promise.resolve(session)),
    transitionWithSequence: vi.fn(
      (_tenant: Tenant, _id: string, change: (tx: Transaction, sequence: number) => unknown) =>
        change(tx, session.eventSequence + 1),
    ),
    markTasked: vi.fn(() => Promise.resolve()),
    recordProgress: vi.fn(() => Promise.resolve(true)),
    markCompletedBySubmissions: vi.fn(
      (..._call: Parameters<SessionsRepository['markCompletedBySubmissions']>) => Promise.resolve(),
    ),
    markFailed: vi.fn(() => Promise.resolve()),
  };
  const events = { append: vi.fn((..._event: Appended) => Promise.resolve('evt')) };
  const own = submission(tasking, { userId: member.userId });
  const tasking_ = {
    task: vi.fn(() => Promise.resolve(tasking)),
    submit: vi.fn((): Promise<SubmissionProgress> =>
      Promise.resolve({
        tasking,
        assignment: own,
        amended: false,
        ...(progress ?? { submitted: 1, active: 3 }),
      }),
    ),
    submissions: vi.fn(() => Promise.resolve(submissions)),
    close: vi.fn(() => Promise.resolve()),
    overdue: vi.fn(() => Promise.resolve(overdue ?? [])),
    taskingOf: vi.fn(() => Promise.resolve(tasking)),
  };
  const assignments = { assignmentOf: vi.fn(() => Promise.resolve(own)) };
  const judging = { open: vi.fn(() => Promise.resolve()) };
  const trackRecords = { of: vi.fn(() => Promise.resolve(records ?? new Map())) };
  const pool = { get: vi.fn(() => Promise.resolve(null)) };
  const work = new AnalystWork(
    tasking_ as unknown as TaskingService,
    assignments as unknown as AssignmentsService,
    {} as SubmittedSketches,
    judging as never,
    trackRecords as never,
    pool as never,
  );
  const noRecord: VerifiedRecord = { n: 0, hits: 0, partials: 0, misses: 0, byBaseline: [] };
  const verified = { of: vi.fn(() => Promise.resolve(noRecord)) };
  const lifecycle = new AnalystLifecycle(
    tasking_ as unknown as TaskingService,
    work,
    judging as never,
    verified as unknown as VerifiedRecords,
    events as unknown as EventLog,
  );
  const analystSessions = new AnalystSessions(
    sessions as unknown as SessionsRepository,
    events as unknown as EventLog,
    { publicUrl: 'https://api.example.test' } as AppSettings,
    lifecycle,
  );
  return {
    lifecycle,
    analystSessions,
    sessions,
    events,
    tasking: tasking_,
    judging,
    trackRecords,
    verified,
  };
}

/** The event types written, in order. */
function eventTypes(events: ReturnType<typeof world>['events']): string[] {
  return events.append.mock.calls.map((call) => call[2]);
}

function eventData(events: ReturnType<typeof world>['events'], type: string) {
  return events.append.mock.calls.find((call) => call[2] === type)?.[3];
}

// Completions are logged: kept out of the test run's output.
beforeEach(() => {
  vi.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

const input = { descriptors: ['tall'], coordinates: null, notes: null, confidence: null };

describe('AnalystSessions.task', () => {
  it('starts the session at its tasking, due at the tasking’s deadline, with session.started', async () => {
    const session = stored({ status: 'initiated', engineVersion: null });
    const tasking = taskingOf(session);
    const { analystSessions, sessions, events, tasking: taskings } = world({ session, tasking });
    const prepared = { analystCount: 3, judging: false, decoyCount: 4, targetId: null };

    await analystSessions.task(tx, tenant, session, prepared, 'req_1');

    expect(taskings.task).toHaveBeenCalledWith(
      tx,
      tenant,
      expect.objectContaining({
        kind: 'session',
        workId: session.id,
        target: 'The lighthouse at Cape Wrath',
        questionType: 'remote_viewing',
        durationMinutes: 60,
        analystCount: 3,
      }),
      'req_1',
    );
    expect(sessions.markTasked).toHaveBeenCalledWith(tx, tenant, session.id, {
      startedAt: tasking.createdAt,
      engineVersion: 'analyst-1',
      deadline: tasking.deadline,
      sequence: 3,
    });
    expect(session).toMatchObject({ status: 'in_progress', estimatedCompletion: tasking.deadline });
    expect(eventData(events, 'session.started')).toMatchObject({
      status: 'in_progress',
      sequence: 3,
    });
  });
});

describe('AnalystSessions.submit', () => {
  it('moves progress to the share who have submitted, in 10 % steps, and announces it', async () => {
    const session = stored();
    const { analystSessions, sessions, events, tasking } = world({
      session,
      tasking: taskingOf(session),
      progress: { submitted: 1, active: 3 },
    });
    const publicId = toPublicId('session', session.id);

    await analystSessions.submit(member, tenant, publicId, input, 'req_2');

    expect(tasking.submit).toHaveBeenCalledWith(
      tx,
      tenant,
      member,
      'session',
      session.id,
      publicId,
      input,
      'req_2',
    );
    expect(sessions.recordProgress).toHaveBeenCalledWith(tx, tenant, session.id, 30, 3);
    expect(eventTypes(events)).toEqual(['session.progress_updated']);
    expect(eventData(events, 'session.progress_updated')).toMatchObject({
      session_id: publicId,
      progress: 30,
      sequence: 3,
    });
    expect(sessions.markCompletedBySubmissions).not.toHaveBeenCalled();
    expect(tasking.close).not.toHaveBeenCalled();
  });

  it('never moves progress back nor announces a step already reached', async () => {
    const session = stored({ progress: 50 });
    const { analystSessions, sessions, events } = world({
      session,
      tasking: taskingOf(session),
      // An analyst declined and nobody took the place: 1 of 2 is still 50 %.
      progress: { submitted: 1, active: 2 },
    });
    await analystSessions.submit(member, tenant, toPublicId('session', session.id), input, null);
    expect(sessions.recordProgress).not.toHaveBeenCalled();
    expect(events.append).not.toHaveBeenCalled();
  });

  it('completes the session with the combined submissions when the last one is in, then closes its tasking', async () => {
    const session = stored({ progress: 60 });
    const tasking = taskingOf(session);
    const [steady, novice, third] = [newUuid(), newUuid(), newUuid()];
    const submissions = [
      submission(tasking, { userId: novice, descriptors: ['tall', 'white'] }),
      submission(tasking, { userId: steady, descriptors: ['tall', 'coast', 'light'] }),
      submission(tasking, { userId: third, descriptors: ['tall', 'coast'] }),
    ];
    const {
      analystSessions,
      sessions,
      events,
      tasking: taskings,
      judging,
      trackRecords,
      verified,
    } = world({
      session,
      tasking,
      progress: { submitted: 3, active: 3 },
      submissions,
      // Only `steady` has a record above chance: the lead analyst, and evidence from records.
      records: new Map([
        [steady, record(18, 30)],
        [novice, record(0, 2)],
      ]),
    });

    await analystSessions.submit(member, tenant, toPublicId('session', session.id), input, 'req_3');

    expect(verified.of).toHaveBeenCalledWith(
      tenant,
      expect.objectContaining({ type: 'remote_viewing' }),
    );
    expect(trackRecords.of).toHaveBeenCalledWith(tenant.organizationId, [novice, steady, third], {
      kind: 'session',
      modality: 'visual',
    });
    expect(sessions.recordProgress).toHaveBeenCalledWith(tx, tenant, session.id, 100, 3);
    expect(sessions.markCompletedBySubmissions).toHaveBeenCalledWith(
      tx,
      tenant,
      session.id,
      expect.objectContaining({
        analystId: toPublicId('analyst', steady),
        evidence: 'track_record',
        sequence: 4,
      }),
    );
    const written = sessions.markCompletedBySubmissions.mock.calls[0]![3] as unknown as {
      results: SessionResultsData;
      confidenceScore: number;
    };
    // Every descriptor reported, the most supported first.
    expect(written.results.descriptors[0]).toBe('tall');
    expect([...written.results.descriptors].sort()).toEqual(['coast', 'light', 'tall', 'white']);
    expect(written.results.collaborative_insights.map((c) => c.analyst_id)).toEqual(
      [novice, steady, third].map((id) => toPublicId('analyst', id)),
    );
    expect(written.confidenceScore).toBeGreaterThanOrEqual(0);
    expect(written.confidenceScore).toBeLessThanOrEqual(1);

    expect(eventTypes(events)).toEqual(['session.progress_updated', 'session.completed']);
    expect(eventData(events, 'session.completed')).toMatchObject({
      status: 'completed',
      target: session.target,
      sequence: 4,
      results: expect.objectContaining({ descriptors: written.results.descriptors }),
    });
    expect(taskings.close).toHaveBeenCalledWith(tx, tasking, 'completed', 'req_3');
    // The results are written before the tasking closes (revealing the target to the analysts).
    expect(sessions.markCompletedBySubmissions.mock.invocationCallOrder[0]).toBeLessThan(
      taskings.close.mock.invocationCallOrder[0]!,
    );
    // Judging was not asked for.
    expect(judging.open).not.toHaveBeenCalled();
  });

  it('keeps a classified session’s target out of session.completed', async () => {
    const session = stored({ privacyLevel: 'classified' });
    const tasking = taskingOf(session);
    const { analystSessions, events } = world({
      session,
      tasking,
      progress: { submitted: 1, active: 1 },
      submissions: [submission(tasking)],
    });
    await analystSessions.submit(member, tenant, toPublicId('session', session.id), input, null);
    expect(eventData(events, 'session.completed')).not.toHaveProperty('target');
  });

  it('opens blind judging of completed work that asks for it, with the work’s target as the truth', async () => {
    const session = stored();
    const tasking = taskingOf(session, { judging: true, decoyCount: 3 });
    const {
      analystSessions,
      judging,
      tasking: taskings,
    } = world({
      session,
      tasking,
      progress: { submitted: 1, active: 1 },
      submissions: [submission(tasking)],
    });
    await analystSessions.submit(member, tenant, toPublicId('session', session.id), input, 'req_4');
    expect(judging.open).toHaveBeenCalledWith(
      tx,
      tenant,
      {
        taskingId: tasking.id,
        kind: 'session',
        workPublicId: toPublicId('session', session.id),
        modality: 'visual',
        decoyCount: 3,
        targetId: null,
        truth: { description: session.target, descriptors: [], latitude: null, longitude: null },
      },
      'req_4',
    );
    expect(taskings.close.mock.invocationCallOrder[0]).toBeLessThan(
      judging.open.mock.invocationCallOrder[0]!,
    );
  });

  it('takes the submission but moves nothing on a session that ended meanwhile', async () => {
    const session = stored({ status: 'failed' });
    const { analystSessions, sessions, events } = world({
      session,
      tasking: taskingOf(session),
      progress: { submitted: 3, active: 3 },
    });
    await analystSessions.submit(member, tenant, toPublicId('session', session.id), input, null);
    expect(sessions.recordProgress).not.toHaveBeenCalled();
    expect(sessions.markCompletedBySubmissions).not.toHaveBeenCalled();
    expect(events.append).not.toHaveBeenCalled();
  });

  it('answers 404 for an unknown session, and for a simulated one to a person', async () => {
    const simulated = stored({ engine: 'simulated' });
    const { analystSessions, tasking } = world({
      session: simulated,
      tasking: taskingOf(simulated),
    });
    const publicId = toPublicId('session', simulated.id);
    expect(
      (await refusal(analystSessions.submit(member, tenant, 'sess_nope', input, null))).code,
    ).toBe('NOT_FOUND');
    expect(
      (await refusal(analystSessions.submit(member, tenant, publicId, input, null))).code,
    ).toBe('NOT_FOUND');
    // A credential that is no person may read the session: it is told why it cannot submit.
    const noPerson = await refusal(
      analystSessions.submit(undefined, tenant, publicId, input, null),
    );
    expect(noPerson.code).toBe('CONFLICT');
    expect(noPerson.details.field).toBe('engine');
    expect(tasking.submit).not.toHaveBeenCalled();
  });
});

describe('AnalystSessions.closeOverdue', () => {
  it('completes an overdue session with what was submitted', async () => {
    const session = stored({ progress: 30 });
    const tasking = taskingOf(session, { deadline: new Date(Date.now() - 1_000) });
    const {
      analystSessions,
      sessions,
      tasking: taskings,
    } = world({
      session,
      tasking,
      submissions: [submission(tasking)],
      overdue: [tasking],
    });
    expect(await analystSessions.closeOverdue()).toBe(1);
    expect(sessions.markCompletedBySubmissions).toHaveBeenCalledWith(
      tx,
      tenant,
      session.id,
      expect.objectContaining({ sequence: 3 }),
    );
    expect(taskings.close).toHaveBeenCalledWith(tx, tasking, 'completed', null);
  });

  it('fails an overdue session nobody submitted on as deadline_exceeded, expiring its assignments', async () => {
    const session = stored();
    const tasking = taskingOf(session, { deadline: new Date(Date.now() - 1_000) });
    const {
      analystSessions,
      sessions,
      events,
      tasking: taskings,
    } = world({
      session,
      tasking,
      submissions: [],
      overdue: [tasking],
    });
    expect(await analystSessions.closeOverdue()).toBe(1);
    expect(sessions.markFailed).toHaveBeenCalledWith(tx, tenant, session.id, {
      reason: 'deadline_exceeded',
      message: 'No analyst submitted before the deadline',
      failedAt: expect.any(Date),
      sequence: 3,
    });
    expect(eventData(events, 'session.failed')).toMatchObject({
      reason: 'deadline_exceeded',
      status: 'failed',
      sequence: 3,
    });
    expect(sessions.markCompletedBySubmissions).not.toHaveBeenCalled();
    expect(taskings.close).toHaveBeenCalledWith(tx, tasking, 'expired', null);
  });

  it('only closes the tasking of a session that ended otherwise, counting it as unchanged', async () => {
    const session = stored({ status: 'completed' });
    const tasking = taskingOf(session);
    const {
      analystSessions,
      sessions,
      events,
      tasking: taskings,
    } = world({
      session,
      tasking,
      overdue: [tasking],
    });
    expect(await analystSessions.closeOverdue()).toBe(0);
    expect(taskings.close).toHaveBeenCalledWith(tx, tasking, 'cancelled', null);
    expect(sessions.markFailed).not.toHaveBeenCalled();
    expect(events.append).not.toHaveBeenCalled();
  });
});

describe('AnalystLifecycle.cancelled', () => {
  it('closes the tasking of cancelled analyst work, and leaves other engines’ work alone', async () => {
    const session = stored();
    const tasking = taskingOf(session);
    const { lifecycle, tasking: taskings } = world({ session, tasking });
    await lifecycle.cancelled('session', tx, session, 'req_5');
    expect(taskings.close).toHaveBeenCalledWith(tx, tasking, 'cancelled', 'req_5');

    const simulated = stored({ engine: 'simulated' });
    const other = world({ session: simulated, tasking: taskingOf(simulated) });
    await other.lifecycle.cancelled('session', tx, simulated, null);
    expect(other.tasking.taskingOf).not.toHaveBeenCalled();
    expect(other.tasking.close).not.toHaveBeenCalled();
  });
});
