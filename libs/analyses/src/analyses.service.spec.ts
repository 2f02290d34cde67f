import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { httpStatusOf, newUuid, toPublicId, type Tenant } from '#common';
import type { Sql, Transaction } from '#database';
import { EngineRegistry, SimulatedAnalysisEngine } from '#engines';
import type { EventLog } from '#events';
import type { OrganizationLimits, OrganizationLimitsCache } from '#organizations';
import { AnalystLifecycle, WorkLifecycle, type BatchRecords } from '#work';
import type { AnalysesRepository } from './analyses.repository.js';
import { AnalysesService } from './analyses.service.js';
import { AnalysisKind } from './analysis-kind.js';
import type { AnalysisEstimates } from './analysis-estimates.js';
import type { NewAnalysis } from './analysis-request.js';
import type { AnalystAnalyses } from './analyst-analyses.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';
import { refusal } from '#common/testing';

/**
 * Creating and cancelling analyses, with the repository, the event log, the
 * organisation's limits, the queue estimates and the analysts' side faked
 * (the simulated engine is the real one): the concurrent-analyses limit as
 * the service applies it, and what each write is preceded by.
 */

const tenant: Tenant = { organizationId: newUuid(), mode: 'live' };
const tx = { open: true } as unknown as Transaction;
/** The clock stands still here, so a Retry-After is exact. */
const NOW = new Date('2026-03-02T10:00:00Z');

const limits: OrganizationLimits = {
  plan: 'pro',
  requestsPerMinute: 600,
  requestsPerHour: null,
  requestsPerDay: null,
  concurrentSessions: 2,
};

interface World {
  /** The tenant's running analyses as the locked count sees them, the new ones included. */
  running?: number;
  /** When the first running analysis is expected to finish. */
  nextCompletion?: Date | null;
  /** The organisation's limits; null when it does not exist. */
  limits?: OrganizationLimits | null;
  /** The engine each analysis is done by, unless asked. */
  engine?: 'simulated' | 'analyst';
  found?: AnalysisEntity | null;
}

function world(options: World = {}) {
  const steps: string[] = [];
  const step =
    <T>(name: string, result: T) =>
    (..._call: unknown[]) => {
      steps.push(name);
      return Promise.resolve(result);
    };
  const analyses = {
    insert: vi.fn(step('insert analysis', undefined)),
    countRunningLocked: vi.fn((_tx: Transaction, _tenant: Tenant, atMost: number) => {
      steps.push('count running');
      return Promise.resolve(Math.min(options.running ?? 0, atMost));
    }),
    nextCompletion: vi.fn(step('next completion', options.nextCompletion ?? null)),
    findForUpdate: vi.fn(() => Promise.resolve(options.found ?? null)),
    markFailed: vi.fn(step('mark failed', undefined)),
  };
  const events = { append: vi.fn(step('event', undefined)) };
  const cache = {
    get: vi.fn(step('read limits', options.limits === undefined ? limits : options.limits)),
  };
  const estimates = {
    estimate: vi.fn((requests: readonly unknown[]) =>
      Promise.resolve(requests.map((_, i) => new Date(NOW.getTime() + (i + 1) * 60_000))),
    ),
  };
  const batches = {
    insert: vi.fn(() => {
      steps.push('insert batch');
      return Promise.resolve({ id: newUuid() });
    }),
  };
  const analysts = {
    engineFor: vi.fn((_tenant: Tenant, requested: 'simulated' | 'analyst' | undefined) =>
      Promise.resolve(requested ?? options.engine ?? 'simulated'),
    ),
    prepare: vi.fn((..._call: unknown[]) =>
      Promise.resolve({ analystCount: 1, durationMinutes: 60 }),
    ),
    task: vi.fn(step('task analysts', undefined)),
    creating: () => ({
      requestedEngine: (input: NewAnalysis) => input.people?.engine,
      prepare: (tenant: Tenant, input: NewAnalysis, at: string) =>
        analysts.prepare(tenant, input.people, at),
      task: analysts.task,
    }),
  };
  const tasking = {
    taskingOf: vi.fn(() => Promise.resolve({ id: 'tasking' })),
    close: vi.fn(step('close tasking', undefined)),
  };
  const sql = {
    transaction: (work: (tx: Transaction) => Promise<unknown>) => {
      steps.push('begin');
      return work(tx);
    },
  };
  const engines = new EngineRegistry([new SimulatedAnalysisEngine()]);
  const lifecycle = new WorkLifecycle(
    sql as unknown as Sql,
    events as unknown as EventLog,
    new AnalystLifecycle(
      { ...tasking, engineFor: analysts.engineFor } as never,
      {} as never,
      {} as never,
      {} as never,
      events as never,
    ),
    engines,
    cache as unknown as OrganizationLimitsCache,
    batches as unknown as BatchRecords,
  );
  const kind = new AnalysisKind(
    analyses as unknown as AnalysesRepository,
    engines,
    estimates as unknown as AnalysisEstimates,
    analysts as unknown as AnalystAnalyses,
  );
  const service = new AnalysesService(lifecycle, kind);
  return { service, analyses, events, cache, estimates, batches, analysts, tasking, steps };
}

const request: NewAnalysis = {
  targetType: 'location',
  analysisType: 'comprehensive',
  priority: 'high',
  description: 'The old mill',
  referenceMaterial: { photos: [], documents: [], coordinates: null },
};

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
});
afterEach(() => vi.useRealTimers());

describe('AnalysesService.create and the concurrent-analyses limit', () => {
  it('reads the limits before the transaction, and counts the running analyses after the insert, in it', async () => {
    const { service, analyses, events, steps } = world({ running: 2 });

    const analysis = await service.create(tenant, request, 'req_1');

    expect(steps).toEqual(['read limits', 'begin', 'insert analysis', 'event', 'count running']);
    expect(analyses.insert).toHaveBeenCalledWith(tx, tenant, analysis);
    expect(events.append).toHaveBeenCalledWith(
      tx,
      tenant,
      'analysis.created',
      expect.objectContaining({ analysis_id: toPublicId('analysis', analysis.id), sequence: 1 }),
      'req_1',
    );
    // One past the plan's two: the count stops there, however many run.
    expect(analyses.countRunningLocked).toHaveBeenCalledWith(tx, tenant, 3);
    expect(analyses.nextCompletion).not.toHaveBeenCalled();
    expect(analysis).toMatchObject({
      status: 'queued',
      engine: 'simulated',
      estimatedCompletion: new Date(NOW.getTime() + 60_000),
      eventSequence: 1,
    });
  });

  it('refuses the analysis that takes the tenant past the limit with 429 and the wait until one finishes', async () => {
    const { service, analyses } = world({
      running: 3,
      nextCompletion: new Date(NOW.getTime() + 41_200),
    });

    const error = await refusal(service.create(tenant, request, null));

    expect(error.code).toBe('RATE_LIMITED');
    expect(httpStatusOf(error.code)).toBe(429);
    expect(error.message).toBe(
      'The pro plan allows 2 concurrent analyses (queued or processing), and that many are running',
    );
    expect(error.details).toMatchObject({ field: 'concurrent_analyses', limit: 2, plan: 'pro' });
    expect(error.headers).toEqual({ 'Retry-After': '42' });
    expect(analyses.nextCompletion).toHaveBeenCalledWith(tenant, tx);
  });

  it('asks for a retry after a second when no running analysis says when it finishes', async () => {
    const { service } = world({ running: 5, nextCompletion: null });
    const error = await refusal(service.create(tenant, request, null));
    expect(error.headers).toEqual({ 'Retry-After': '1' });
  });

  it('counts nothing for an organisation that has no limits', async () => {
    const { service, analyses } = world({ limits: null, running: 100 });
    await service.create(tenant, request, null);
    expect(analyses.countRunningLocked).not.toHaveBeenCalled();
  });

  it('tasks analyst work inside the transaction, before the count, so it is refused with the rest', async () => {
    const { service, analysts, steps } = world({ engine: 'analyst', running: 3 });
    const people = { analystCount: 2 };
    const error = await refusal(service.create(tenant, { ...request, people }, null));
    expect(error.code).toBe('RATE_LIMITED');
    expect(analysts.prepare).toHaveBeenCalledWith(tenant, people, '');
    expect(steps).toEqual([
      'read limits',
      'begin',
      'insert analysis',
      'event',
      'task analysts',
      'count running',
      'next completion',
    ]);
    expect(analysts.task.mock.calls[0]![2]).toMatchObject({ engine: 'analyst' });
  });
});

describe('AnalysesService.createBatch', () => {
  it('inserts the batch and every item, each done by the engine it asks for, then counts once', async () => {
    const { service, analysts, estimates, steps } = world({ running: 2 });
    const { batch, created: analyses } = await service.createBatch(
      tenant,
      [request, { ...request, priority: 'low', people: { engine: 'analyst' } }, request],
      'req_2',
    );
    expect(analyses.map((a) => [a.engine, a.batchId])).toEqual([
      ['simulated', batch.id],
      ['analyst', batch.id],
      ['simulated', batch.id],
    ]);
    // Each item's tasking is checked where the batch names it.
    expect(analysts.prepare).toHaveBeenCalledTimes(1);
    expect(analysts.prepare).toHaveBeenCalledWith(tenant, { engine: 'analyst' }, 'analyses.1.');
    expect(estimates.estimate.mock.calls[0]![0]).toEqual([
      expect.objectContaining({ priority: 'high' }),
      expect.objectContaining({ priority: 'low' }),
      expect.objectContaining({ priority: 'high' }),
    ]);
    expect(steps.filter((s) => s === 'count running')).toHaveLength(1);
    expect(steps.at(-1)).toBe('count running');
    expect(steps.indexOf('insert batch')).toBe(steps.indexOf('begin') + 1);
  });

  it('refuses the whole batch when it takes the tenant past the limit: the transaction fails after every insert', async () => {
    const { service, analyses } = world({ running: 3 });
    const error = await refusal(service.createBatch(tenant, [request, request, request], null));
    expect(error.code).toBe('RATE_LIMITED');
    expect(analyses.insert).toHaveBeenCalledTimes(3);
  });
});

describe('AnalysesService.cancel', () => {
  function stored(status: AnalysisEntity['status']): AnalysisEntity {
    return {
      id: newUuid(),
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      status,
      eventSequence: 4,
      analysisType: 'comprehensive',
      targetType: 'location',
      priority: 'high',
    } as AnalysisEntity;
  }

  it('answers 404 for a malformed id or an analysis the tenant does not have', async () => {
    const { service, analyses } = world({ found: null });
    expect((await refusal(service.cancel(tenant, 'anal_nope', null))).code).toBe('NOT_FOUND');
    const unknown = toPublicId('analysis', newUuid());
    expect((await refusal(service.cancel(tenant, unknown, null))).code).toBe('NOT_FOUND');
    expect(analyses.markFailed).not.toHaveBeenCalled();
  });

  it('refuses a finished analysis, naming its status', async () => {
    for (const status of ['completed', 'failed'] as const) {
      const found = stored(status);
      const { service, analyses, tasking } = world({ found });
      const error = await refusal(service.cancel(tenant, toPublicId('analysis', found.id), null));
      expect(error.code).toBe('CONFLICT');
      expect(error.details.field).toBe('status');
      expect(analyses.markFailed).not.toHaveBeenCalled();
      expect(tasking.close).not.toHaveBeenCalled();
    }
  });

  it('closes the analysts’ tasking, then fails the analysis as cancelled with the next sequence', async () => {
    const found = { ...stored('processing'), engine: 'analyst' };
    const publicId = toPublicId('analysis', found.id);
    const { service, analyses, events, tasking, steps } = world({ found });

    const cancelled = await service.cancel(tenant, publicId, 'req_3');

    expect(tasking.taskingOf).toHaveBeenCalledWith(tenant, 'analysis', found.id);
    expect(tasking.close).toHaveBeenCalledWith(tx, { id: 'tasking' }, 'cancelled', 'req_3');
    expect(analyses.markFailed).toHaveBeenCalledWith(tx, tenant, found.id, {
      reason: 'cancelled',
      message: 'The analysis was cancelled',
      failedAt: NOW,
      sequence: 5,
    });
    expect(events.append).toHaveBeenCalledWith(
      tx,
      tenant,
      'analysis.failed',
      expect.objectContaining({ analysis_id: publicId, reason: 'cancelled', sequence: 5 }),
      'req_3',
    );
    expect(steps).toEqual(['begin', 'close tasking', 'mark failed', 'event']);
    expect(cancelled).toMatchObject({
      status: 'failed',
      failureReason: 'cancelled',
      eventSequence: 5,
    });
  });
});
