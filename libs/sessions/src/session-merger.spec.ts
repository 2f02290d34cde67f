import { describe, expect, it, vi } from 'vitest';
import { newUuid, toPublicId, type Tenant } from '#common';
import type { Sql, Transaction } from '#database';
import { EngineRegistry, SimulatedSessionEngine } from '#engines';
import type { EventLog } from '#events';
import type { VerifiedRecords } from '#history';
import type { OrganizationsService } from '#organizations';
import type { VerifiedRecord } from '#statistics';
import type { SessionEntity } from './entities/session.entity.js';
import { SessionMerger } from './session-merger.js';
import type { SessionsRepository } from './sessions.repository.js';
import type { SessionsService } from './sessions.service.js';
import { refusal } from '#common/testing';

/**
 * Merging completed sessions (POST /v2/sessions/{id}/merge), with the real
 * simulated engine and a faked repository, event log and organisation: what
 * is refused before anything is written, and what one merge writes.
 */

const tenant: Tenant = { organizationId: newUuid(), mode: 'live' };
const tx = { open: true } as unknown as Transaction;
/** An event as the faked log takes it. */
type Appended = [Transaction, Tenant, string, Record<string, unknown>, string | null];
const engine = new SimulatedSessionEngine();
const ORG_SEED = 'org-seed';

function completed(overrides: Partial<SessionEntity> = {}): SessionEntity {
  const at = new Date(Date.now() - 60_000);
  return {
    id: newUuid(),
    organizationId: tenant.organizationId,
    mode: tenant.mode,
    type: 'remote_viewing',
    target: 'The object in envelope 4711',
    modality: 'visual',
    durationMinutes: 30,
    privacyLevel: 'private',
    status: 'completed',
    progress: 100,
    engine: 'simulated',
    engineVersion: engine.version,
    engineSeed: 'seed',
    results: null,
    confidenceScore: 0.4,
    analystId: null,
    evidence: 'prior',
    failureReason: null,
    eventSequence: 6,
    createdAt: at,
    updatedAt: at,
    startedAt: at,
    completedAt: at,
    estimatedCompletion: at,
    batchId: null,
    analystCount: 1,
    mergedFrom: null,
    ...overrides,
  };
}

/** A merger over `stored`: findMany finds those of the tenant among the ids asked for. */
function merger(stored: SessionEntity[]) {
  const repository = {
    findMany: vi.fn((asked: Tenant, ids: readonly string[]) =>
      Promise.resolve(
        stored.filter(
          (s) =>
            ids.includes(s.id) &&
            s.organizationId === asked.organizationId &&
            s.mode === asked.mode,
        ),
      ),
    ),
    insert: vi.fn(() => Promise.resolve()),
  };
  const events = { append: vi.fn((..._event: Appended) => Promise.resolve('evt')) };
  const transactions: Transaction[] = [];
  const sql = {
    transaction: (work: (tx: Transaction) => Promise<unknown>) => {
      transactions.push(tx);
      return work(tx);
    },
  };
  const sessions = {
    sketchUrl: (session: SessionEntity, index: number) =>
      `https://api.example.test/v1/sessions/${session.id}/sketches/${index}.svg`,
  };
  const organizations = { engineSeed: vi.fn(() => Promise.resolve(ORG_SEED)) };
  const noRecord: VerifiedRecord = { n: 0, hits: 0, partials: 0, misses: 0, byBaseline: [] };
  const verified = { of: vi.fn(() => Promise.resolve(noRecord)) };
  const service = new SessionMerger(
    sql as unknown as Sql,
    repository as unknown as SessionsRepository,
    events as unknown as EventLog,
    sessions as unknown as SessionsService,
    new EngineRegistry([engine]),
    organizations as unknown as OrganizationsService,
    verified as unknown as VerifiedRecords,
  );
  return { service, repository, events, transactions, organizations, verified };
}

const idOf = (session: SessionEntity) => toPublicId('session', session.id);

describe('SessionMerger.merge refuses, writing nothing', () => {
  it('a list that names the session in the path again', async () => {
    const first = completed();
    const { service, repository } = merger([first]);
    const error = await refusal(service.merge(tenant, idOf(first), [idOf(first)], null));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.details.field).toBe('session_ids');
    expect(repository.findMany).not.toHaveBeenCalled();
  });

  it('a session of another organisation or mode as if it did not exist (404 naming it)', async () => {
    const first = completed();
    const foreign = completed({ organizationId: newUuid() });
    const sandbox = completed({ mode: 'test' });
    for (const other of [foreign, sandbox]) {
      const { service, repository, transactions } = merger([first, other]);
      const error = await refusal(service.merge(tenant, idOf(first), [idOf(other)], null));
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toContain(idOf(other));
      expect(repository.findMany).toHaveBeenCalledWith(tenant, [first.id, other.id]);
      expect(transactions).toEqual([]);
    }
  });

  it('a malformed id, naming it', async () => {
    const first = completed();
    const { service } = merger([first]);
    const error = await refusal(service.merge(tenant, idOf(first), ['sess_nope'], null));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('sess_nope');
  });

  it.each([
    ['unfinished', { status: 'in_progress' as const, completedAt: null }, 'not completed'],
    ['of another type', { type: 'dowsing' as const }, 'its type dowsing is not remote_viewing'],
    ['on another target', { target: 'Another envelope' }, 'its target differs'],
    ['itself a merge', { mergedFrom: [newUuid(), newUuid()] }, 'itself a merge'],
    ['done by analysts', { engine: 'analyst', engineVersion: 'analyst-1' }, 'done by analysts'],
  ])('a source %s, with 409 naming it', async (_, change, reason) => {
    const [first, second] = [completed(), completed()];
    const faulty = completed(change);
    const { service, repository, events, organizations, transactions } = merger([
      first,
      second,
      faulty,
    ]);
    const error = await refusal(
      service.merge(tenant, idOf(first), [idOf(second), idOf(faulty)], null),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.details.field).toBe('session_ids');
    expect(error.details.issue).toMatch(new RegExp(`^${idOf(faulty)}: .*${reason}`));
    expect(organizations.engineSeed).not.toHaveBeenCalled();
    expect(transactions).toEqual([]);
    expect(repository.insert).not.toHaveBeenCalled();
    expect(events.append).not.toHaveBeenCalled();
  });

  it('the session in the path when it is unfinished, naming it', async () => {
    const first = completed({ status: 'failed', failureReason: 'cancelled' });
    const second = completed();
    const { service } = merger([first, second]);
    const error = await refusal(service.merge(tenant, idOf(first), [idOf(second)], null));
    expect(error.details.issue).toBe(`${idOf(first)}: it is failed, not completed`);
  });
});

describe('SessionMerger.merge', () => {
  it('inserts one completed session from the engine’s merged outcome, created and completed in one transaction', async () => {
    const first = completed({ privacyLevel: 'public', durationMinutes: 20, analystCount: 2 });
    const second = completed({ privacyLevel: 'classified', durationMinutes: 45 });
    const third = completed({ modality: 'auditory', analystCount: 3 });
    const { service, repository, events, transactions, organizations, verified } = merger([
      third,
      first,
      second,
    ]);

    const merged = await service.merge(tenant, idOf(first), [idOf(second), idOf(third)], 'req_1');

    expect(organizations.engineSeed).toHaveBeenCalledWith(tenant.organizationId);
    expect(verified.of).toHaveBeenCalledWith(
      tenant,
      expect.objectContaining({ type: 'remote_viewing' }),
    );
    const expected = await engine.merge(
      [first, second, third].map((s) => ({
        type: s.type,
        target: s.target,
        modality: s.modality,
        durationMinutes: s.durationMinutes,
        privacyLevel: s.privacyLevel,
        analystCount: s.analystCount,
      })),
      ORG_SEED,
      null,
    );
    expect(merged).toMatchObject({
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      type: 'remote_viewing',
      target: first.target,
      status: 'completed',
      progress: 100,
      // The strictest privacy, no modality (they differ), the longest duration, every analyst.
      privacyLevel: 'classified',
      modality: null,
      durationMinutes: 45,
      analystCount: 6,
      engine: 'simulated',
      engineVersion: engine.version,
      engineSeed: expected.seed,
      results: expected.results,
      confidenceScore: expected.results.confidence_score,
      eventSequence: 2,
      // In the order of the request, not the order they were found in.
      mergedFrom: [first.id, second.id, third.id],
    });
    expect(merged.id).not.toBe(first.id);

    expect(transactions).toEqual([tx]);
    expect(repository.insert).toHaveBeenCalledWith(tx, tenant, merged);
    expect(events.append.mock.calls.map((call) => [call[0], call[2], call[4]])).toEqual([
      [tx, 'session.created', 'req_1'],
      [tx, 'session.completed', 'req_1'],
    ]);
    const [created, done] = events.append.mock.calls.map((call) => call[3]);
    expect(created).toMatchObject({ session_id: idOf(merged), status: 'completed', sequence: 1 });
    expect(done).toMatchObject({ session_id: idOf(merged), status: 'completed', sequence: 2 });
    // A merge as private as its most private source: no target leaves in the event.
    expect(done).not.toHaveProperty('target');
  });
});
