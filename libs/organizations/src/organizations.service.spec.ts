import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { ApiKeyService } from '#api-keys';
import { ALL_SCOPES, httpStatusOf, newUuid, toPublicId, type Principal } from '#common';
import type { Sql, Transaction } from '#database';
import { AuditLog, type EventLog } from '#events';
import { LIMITS_TTL_MS, OrganizationLimitsCache } from './organization-limits.cache.js';
import { PLAN_LIMITS, TIER_QUOTAS } from './organization-limits.js';
import type { OrganizationEntity } from './organization.entity.js';
import type { OrganizationsRepository } from './organizations.repository.js';
import { OrganizationsService } from './organizations.service.js';
import { refusal } from '#common/testing';

/**
 * An organisation's limits: which agreed numbers its plan and tier allow
 * (OrganizationsService, with the repository, the event log and the cache
 * faked), what its audit events say, and how every instance reads them
 * (OrganizationLimitsCache, with the repository faked).
 */

const tx = { open: true } as unknown as Transaction;
const operatorId = newUuid();
/** A live-mode credential of the operator (bootstrap) organisation. */
const operator: Principal = {
  organizationId: operatorId,
  mode: 'live',
  credential: 'access_token',
  subject: 'operator-client',
  scopes: ALL_SCOPES,
};

let audited: MockInstance<typeof AuditLog.record>;
beforeEach(() => {
  audited = vi.spyOn(AuditLog, 'record').mockResolvedValue(undefined);
});
afterEach(() => vi.restoreAllMocks());

function organization(overrides: Partial<OrganizationEntity> = {}): OrganizationEntity {
  const at = new Date(Date.now() - 86_400_000);
  return {
    id: newUuid(),
    name: 'Acme',
    plan: 'free',
    tier: 'basic',
    maxConcurrentSessions: null,
    requestsPerMinute: null,
    requestsPerHour: null,
    requestsPerDay: null,
    isBootstrap: false,
    engineSeed: 'seed',
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

function service(current: OrganizationEntity | null = null) {
  const bootstrap = organization({ id: operatorId, isBootstrap: true, plan: 'enterprise' });
  const organizations = {
    insert: vi.fn(() => Promise.resolve()),
    find: vi.fn((id: string) => Promise.resolve(id === operatorId ? bootstrap : current)),
    findForUpdate: vi.fn(() => Promise.resolve(current)),
    update: vi.fn(() => Promise.resolve()),
  };
  const events = { append: vi.fn(() => Promise.resolve()) };
  const limits = { forget: vi.fn() };
  const sql = { transaction: (work: (tx: Transaction) => Promise<unknown>) => work(tx) };
  const organizationsService = new OrganizationsService(
    sql as unknown as Sql,
    organizations as unknown as OrganizationsRepository,
    events as unknown as EventLog,
    limits as unknown as OrganizationLimitsCache,
    {} as ApiKeyService,
  );
  return { organizationsService, organizations, events, limits };
}

describe('OrganizationsService.create', () => {
  it('takes the free plan and basic tier, with no agreed numbers, unless told', async () => {
    const { organizationsService, organizations } = service();
    const created = await organizationsService.create({ name: 'Acme' });
    expect(created).toMatchObject({
      plan: 'free',
      tier: 'basic',
      maxConcurrentSessions: null,
      requestsPerMinute: null,
      isBootstrap: false,
    });
    expect(created.engineSeed).toMatch(/^[0-9a-f]{64}$/);
    expect(organizations.insert).toHaveBeenCalledWith(tx, created);
    // No operator asked (a seeder, a test factory): the service itself is the actor.
    expect(audited).toHaveBeenCalledWith(
      tx,
      { organizationId: created.id, mode: 'live' },
      expect.objectContaining({
        action: 'organization.created',
        actor: { type: 'system', id: 'organizations' },
      }),
    );
  });

  it('records organization.created in the new organisation’s live log, by the operator, with its fields', async () => {
    const { organizationsService } = service();
    const created = await organizationsService.create(
      { name: 'Big', plan: 'enterprise', tier: 'custom', requestsPerDay: 50 },
      operator,
    );
    expect(audited).toHaveBeenCalledTimes(1);
    expect(audited).toHaveBeenCalledWith(
      tx,
      { organizationId: created.id, mode: 'live' },
      {
        action: 'organization.created',
        actor: operator,
        target: { type: 'organization', id: toPublicId('organization', created.id) },
        changes: {
          name: { before: null, after: 'Big' },
          plan: { before: null, after: 'enterprise' },
          tier: { before: null, after: 'custom' },
          requests_per_day: { before: null, after: 50 },
        },
      },
    );
  });

  it('takes agreed concurrency and per-minute numbers on the enterprise plan only', async () => {
    const { organizationsService } = service();
    const agreed = await organizationsService.create({
      name: 'Big',
      plan: 'enterprise',
      maxConcurrentSessions: 900,
      requestsPerMinute: 9000,
    });
    expect(agreed).toMatchObject({ maxConcurrentSessions: 900, requestsPerMinute: 9000 });

    for (const [field, value] of [
      ['maxConcurrentSessions', 'max_concurrent_sessions'],
      ['requestsPerMinute', 'requests_per_minute'],
    ] as const) {
      const { organizationsService: refusing, organizations } = service();
      const error = await refusal(refusing.create({ name: 'Small', plan: 'pro', [field]: 10 }));
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.details).toMatchObject({
        field: value,
        issue: 'custom numbers need the enterprise plan',
      });
      expect(organizations.insert).not.toHaveBeenCalled();
    }
  });

  it('takes agreed hourly and daily quotas on the enterprise and custom tiers only', async () => {
    for (const tier of ['enterprise', 'custom'] as const) {
      const { organizationsService } = service();
      const created = await organizationsService.create({ name: 'Q', tier, requestsPerDay: 50 });
      expect(created.requestsPerDay).toBe(50);
    }
    const { organizationsService } = service();
    const error = await refusal(
      organizationsService.create({ name: 'Q', tier: 'professional', requestsPerHour: 50 }),
    );
    expect(error.details).toMatchObject({
      field: 'requests_per_hour',
      issue: 'custom numbers need the enterprise or custom tier',
    });
  });
});

describe('OrganizationsService.update', () => {
  it('is the live operator’s alone: 403 to anyone else, the operator’s sandbox included', async () => {
    const target = organization();
    for (const caller of [
      { ...operator, organizationId: target.id },
      { ...operator, mode: 'test' as const },
    ]) {
      const { organizationsService, organizations } = service(target);
      const error = await refusal(
        organizationsService.update(
          caller,
          toPublicId('organization', target.id),
          { plan: 'pro' },
          null,
        ),
      );
      expect(error.code).toBe('FORBIDDEN');
      expect(httpStatusOf(error.code)).toBe(403);
      expect(organizations.update).not.toHaveBeenCalled();
    }
    expect(audited).not.toHaveBeenCalled();
  });

  it('refuses a downgrade that leaves an agreed number set, blaming the plan, until it is cleared', async () => {
    const current = organization({ plan: 'enterprise', maxConcurrentSessions: 900 });
    const publicId = toPublicId('organization', current.id);
    const { organizationsService, organizations, limits } = service(current);

    const error = await refusal(
      organizationsService.update(operator, publicId, { plan: 'pro' }, null),
    );
    expect(error.details).toMatchObject({
      field: 'plan',
      issue:
        'max_concurrent_sessions is set, which needs the enterprise plan; clear it (null) in the same request',
    });
    expect(organizations.update).not.toHaveBeenCalled();
    expect(limits.forget).not.toHaveBeenCalled();
    expect(audited).not.toHaveBeenCalled();

    const downgraded = await organizationsService.update(
      operator,
      publicId,
      { plan: 'pro', maxConcurrentSessions: null },
      null,
    );
    expect(downgraded).toMatchObject({ plan: 'pro', maxConcurrentSessions: null });
    expect(organizations.update).toHaveBeenCalledWith(tx, downgraded);
    expect(audited).toHaveBeenCalledWith(
      tx,
      { organizationId: current.id, mode: 'live' },
      {
        action: 'organization.updated',
        actor: operator,
        target: { type: 'organization', id: publicId },
        changes: {
          plan: { before: 'enterprise', after: 'pro' },
          max_concurrent_sessions: { before: 900, after: null },
        },
      },
    );
  });

  it('announces a plan change in live mode and forgets this instance’s cached limits', async () => {
    const current = organization({ plan: 'free', tier: 'basic' });
    const publicId = toPublicId('organization', current.id);
    const { organizationsService, events, limits } = service(current);

    const updated = await organizationsService.update(operator, publicId, { plan: 'pro' }, 'req_1');

    expect(events.append).toHaveBeenCalledWith(
      tx,
      { organizationId: current.id, mode: 'live' },
      'account.subscription_updated',
      expect.objectContaining({
        organization_id: publicId,
        plan: 'pro',
        previous_plan: 'free',
        tier: 'basic',
        previous_tier: 'basic',
      }),
      'req_1',
    );
    expect(limits.forget).toHaveBeenCalledWith(current.id);
    expect(updated.updatedAt.getTime()).toBeGreaterThan(current.updatedAt.getTime());
  });

  it('changes a name without announcing anything, and answers 404 for an unknown organisation', async () => {
    const current = organization();
    const { organizationsService, events } = service(current);
    await organizationsService.update(
      operator,
      toPublicId('organization', current.id),
      { name: 'Acme Ltd' },
      null,
    );
    expect(events.append).not.toHaveBeenCalled();

    const missing = service(null);
    const unknown = toPublicId('organization', newUuid());
    expect(
      (await refusal(missing.organizationsService.update(operator, unknown, {}, null))).code,
    ).toBe('NOT_FOUND');
  });
});

describe('OrganizationLimitsCache', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-02T10:00:00Z') });
  });
  afterEach(() => vi.useRealTimers());

  function cache(row: Partial<OrganizationEntity> | null) {
    const organizations = {
      limits: vi.fn(() =>
        Promise.resolve(
          row && {
            plan: 'free' as const,
            tier: 'basic' as const,
            maxConcurrentSessions: null,
            requestsPerMinute: null,
            requestsPerHour: null,
            requestsPerDay: null,
            ...row,
          },
        ),
      ),
    };
    return {
      limits: new OrganizationLimitsCache(organizations as unknown as OrganizationsRepository),
      organizations,
    };
  }

  it('gives the plan’s and tier’s numbers, replaced by the organisation’s agreed ones', async () => {
    const id = newUuid();
    const plain = cache({ plan: 'pro', tier: 'professional' });
    expect(await plain.limits.get(id)).toEqual({
      plan: 'pro',
      requestsPerMinute: PLAN_LIMITS.pro.requestsPerMinute,
      requestsPerHour: TIER_QUOTAS.professional.requestsPerHour,
      requestsPerDay: TIER_QUOTAS.professional.requestsPerDay,
      concurrentSessions: PLAN_LIMITS.pro.concurrentSessions,
    });
    const agreed = cache({
      plan: 'enterprise',
      tier: 'custom',
      maxConcurrentSessions: 900,
      requestsPerDay: 123,
    });
    expect(await agreed.limits.get(id)).toMatchObject({
      concurrentSessions: 900,
      requestsPerHour: null,
      requestsPerDay: 123,
    });
  });

  it('says null for an organisation that does not exist', async () => {
    expect(await cache(null).limits.get(newUuid())).toBeNull();
  });

  it('reads an organisation once per time-to-live, and again once forgotten', async () => {
    const id = newUuid();
    const { limits, organizations } = cache({});
    await limits.get(id);
    vi.setSystemTime(Date.now() + LIMITS_TTL_MS - 1);
    await limits.get(id);
    expect(organizations.limits).toHaveBeenCalledTimes(1);

    vi.setSystemTime(Date.now() + 1);
    await limits.get(id);
    expect(organizations.limits).toHaveBeenCalledTimes(2);

    limits.forget(id);
    await limits.get(id);
    expect(organizations.limits).toHaveBeenCalledTimes(3);
  });
});
