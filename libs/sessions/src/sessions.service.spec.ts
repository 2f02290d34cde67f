import { describe, expect, it, vi } from 'vitest';
import { newUuid, toPublicId, type Tenant } from '#common';
import type { Transaction } from '#database';
import type { SessionEntity } from './entities/session.entity.js';
import { AnalystLifecycle, WorkLifecycle } from '#work';
import { SessionKind } from './session-kind.js';
import { SessionsService } from './sessions.service.js';
import type { SessionsRepository } from './sessions.repository.js';
import { refusal } from '#common/testing';

/**
 * The rules of creating and cancelling a session, with the repository and
 * the event log faked: what is written, in which unit of work, and what is
 * refused before anything is.
 */

const tenant: Tenant = { organizationId: newUuid(), mode: 'live' };
const tx = { open: true } as unknown as Transaction;

function stored(overrides: Partial<SessionEntity> = {}): SessionEntity {
  const now = new Date();
  return {
    id: newUuid(),
    organizationId: tenant.organizationId,
    mode: tenant.mode,
    type: 'remote_viewing',
    target: 'The object in envelope 4711',
    modality: 'visual',
    durationMinutes: 30,
    privacyLevel: 'private',
    status: 'in_progress',
    progress: 40,
    engine: 'simulated',
    engineVersion: 'simulated-1',
    engineSeed: 'seed',
    results: null,
    confidenceScore: null,
    analystId: null,
    evidence: null,
    failureReason: null,
    eventSequence: 5,
    createdAt: now,
    updatedAt: now,
    startedAt: now,
    completedAt: null,
    estimatedCompletion: null,
    batchId: null,
    analystCount: 1,
    mergedFrom: null,
    ...overrides,
  };
}

function service(options: { found?: SessionEntity | null; running?: number } = {}) {
  const repository = {
    insert: vi.fn(() => Promise.resolve()),
    findForUpdate: vi.fn(() => Promise.resolve(options.found ?? null)),
    markFailed: vi.fn(() => Promise.resolve()),
    countRunningLocked: vi.fn((_tx: Transaction, _tenant: Tenant, atMost: number) =>
      Promise.resolve(Math.min(options.running ?? 0, atMost)),
    ),
    nextCompletion: vi.fn(() => Promise.resolve(null)),
  };
  const events = { append: vi.fn(() => Promise.resolve()) };
  const sql = { transaction: (work: (tx: Transaction) => Promise<unknown>) => work(tx) };
  const limits = {
    get: () =>
      Promise.resolve({
        plan: 'free',
        requestsPerMinute: 60,
        requestsPerHour: null,
        requestsPerDay: null,
        concurrentSessions: 2,
      }),
  };
  const tasking = {
    engineFor: () => Promise.resolve('simulated'),
    taskingOf: vi.fn(() => Promise.resolve({ id: 'tasking' })),
    close: vi.fn(() => Promise.resolve()),
  };
  const engines = { engineFor: () => 'simulated' };
  const settings = { simulatedStepMs: 100, publicUrl: 'https://api.example.test' };
  const lifecycle = new WorkLifecycle(
    sql as never,
    events as never,
    new AnalystLifecycle(tasking as never, {} as never, {} as never, {} as never, events as never),
    engines as never,
    limits as never,
    {} as never,
  );
  const kind = new SessionKind(
    repository as unknown as SessionsRepository,
    settings as never,
    {} as never,
  );
  const sessions = new SessionsService(
    repository as unknown as SessionsRepository,
    settings as never,
    {} as never,
    {} as never,
    lifecycle,
    kind,
  );
  return { sessions, repository, events, tasking };
}

const newSession = {
  type: 'dowsing' as const,
  target: 'Where is the ring',
  modality: null,
  durationMinutes: 10,
  privacyLevel: 'private' as const,
};

describe('SessionsService.create', () => {
  // The unit of work's order and the limit's count are WorkLifecycle's, the same for every
  // kind (analyses.service.spec follows them step by step); here, what a session adds.
  it('stores the session initiated, due after the engine’s steps, and announces it', async () => {
    const { sessions, repository, events } = service({ running: 2 });
    const before = Date.now();
    const session = await sessions.create(tenant, newSession, 'req_1');
    expect(session).toMatchObject({
      ...newSession,
      status: 'initiated',
      progress: 0,
      engine: 'simulated',
      analystCount: 1,
    });
    expect(session.estimatedCompletion!.getTime()).toBeGreaterThan(before);
    expect(repository.insert).toHaveBeenCalledWith(tx, tenant, session);
    const [, , type, data] = events.append.mock.calls[0] as unknown as [
      unknown,
      unknown,
      string,
      Record<string, unknown>,
    ];
    expect(type).toBe('session.created');
    expect(data).toMatchObject({
      session_id: toPublicId('session', session.id),
      type: 'dowsing',
      status: 'initiated',
      estimated_completion: session.estimatedCompletion!.toISOString(),
    });
  });

  it('refuses the session that takes the tenant past its concurrent sessions', async () => {
    const { sessions, repository } = service({ running: 3 });
    const error = await refusal(sessions.create(tenant, newSession, null));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.details).toMatchObject({ field: 'concurrent_sessions', limit: 2 });
    expect(repository.nextCompletion).toHaveBeenCalledWith(tenant, tx);
  });
});

describe('SessionsService.cancel', () => {
  it('answers 404 for a malformed id or a session the tenant does not have', async () => {
    const { sessions, repository } = service();
    expect((await refusal(sessions.cancel(tenant, 'sess_nope', null))).code).toBe('NOT_FOUND');
    const publicId = toPublicId('session', newUuid());
    expect((await refusal(sessions.cancel(tenant, publicId, null))).code).toBe('NOT_FOUND');
    expect(repository.markFailed).not.toHaveBeenCalled();
  });

  it('refuses a finished session, naming its status', async () => {
    for (const status of ['completed', 'failed'] as const) {
      const found = stored({ status });
      const { sessions, repository } = service({ found });
      const error = await refusal(sessions.cancel(tenant, toPublicId('session', found.id), null));
      expect(error.code).toBe('CONFLICT');
      expect(error.details).toMatchObject({ field: 'status' });
      expect(repository.markFailed).not.toHaveBeenCalled();
    }
  });

  it('fails an unfinished session as cancelled, with the next sequence, and announces it', async () => {
    const found = stored();
    const publicId = toPublicId('session', found.id);
    const { sessions, repository, events, tasking } = service({ found });
    const cancelled = await sessions.cancel(tenant, publicId, 'req_2');
    expect(repository.findForUpdate).toHaveBeenCalledWith(tx, tenant, found.id);
    // A simulated session has no tasking to close.
    expect(tasking.taskingOf).not.toHaveBeenCalled();
    expect(repository.markFailed).toHaveBeenCalledWith(tx, tenant, found.id, {
      reason: 'cancelled',
      message: 'The session was cancelled',
      failedAt: cancelled.completedAt,
      sequence: 6,
    });
    expect(events.append).toHaveBeenCalledWith(
      tx,
      tenant,
      'session.failed',
      expect.objectContaining({ session_id: publicId, reason: 'cancelled', sequence: 6 }),
      'req_2',
    );
    expect(cancelled).toMatchObject({
      status: 'failed',
      failureReason: 'cancelled',
      eventSequence: 6,
    });
  });

  it('closes the tasking of a session people do, in the same unit of work', async () => {
    const found = stored({ engine: 'analyst' });
    const { sessions, tasking } = service({ found });
    await sessions.cancel(tenant, toPublicId('session', found.id), 'req_3');
    expect(tasking.taskingOf).toHaveBeenCalledWith(tenant, 'session', found.id);
    expect(tasking.close).toHaveBeenCalledWith(tx, { id: 'tasking' }, 'cancelled', 'req_3');
  });
});
