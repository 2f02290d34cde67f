import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiKeyService } from '#api-keys';
import {
  ALL_SCOPES,
  AppError,
  newUuid,
  parsePublicId,
  toPublicId,
  type Principal,
  type Tenant,
} from '#common';
import { Sql } from '#database';
import type { OrganizationEntity, Plan, Tier } from './organization.entity.js';
import { AuditLog, auditChanges, EventLog, type AuditActor, type AuditTarget } from '#events';
import { OrganizationLimitsCache } from './organization-limits.cache.js';
import { OrganizationsRepository } from './organizations.repository.js';

export interface NewOrganization {
  name: string;
  plan?: Plan;
  tier?: Tier;
  /** Concurrent sessions per mode, when above the plan's; default: the plan's. */
  maxConcurrentSessions?: number | null;
  /** Agreed request limits; default: the plan's and tier's. */
  requestsPerMinute?: number | null;
  requestsPerHour?: number | null;
  requestsPerDay?: number | null;
}

/** Who creates an organisation no operator asked for (a seeder, a test factory). */
const SERVICE_ACTOR: AuditActor = { type: 'system', id: 'organizations' };

/** Engine seeds one process keeps (they never change; see engineSeed). */
const MAX_CACHED_SEEDS = 100_000;

@Injectable()
export class OrganizationsService {
  private readonly engineSeeds = new Map<string, string>();

  constructor(
    private readonly sql: Sql,
    private readonly organizations: OrganizationsRepository,
    private readonly events: EventLog,
    private readonly limits: OrganizationLimitsCache,
    private readonly apiKeys: ApiKeyService,
  ) {}

  /**
   * A new organisation, with its `organization.created` audit event in the
   * new organisation's own (live) log. `actor`: the operator who asked; the
   * service itself for tools that create organisations directly (seeders,
   * test factories).
   */
  async create(
    input: NewOrganization,
    actor: AuditActor | Principal = SERVICE_ACTOR,
  ): Promise<OrganizationEntity> {
    const organization = this.build(input, false);
    assertCustomNumbersAllowed(organization, input);
    await this.sql.transaction(async (tx) => {
      await this.organizations.insert(tx, organization);
      await AuditLog.record(
        tx,
        { organizationId: organization.id, mode: 'live' },
        {
          action: 'organization.created',
          actor,
          target: organizationTarget(organization.id),
          changes: auditChanges({}, auditFields(organization)),
        },
      );
    });
    return organization;
  }

  /**
   * The operator creates an organisation with its first API key: every scope,
   * live mode, created on the operator's behalf; the key is shown only once.
   */
  async createWithAdminKey(
    operator: Principal,
    input: NewOrganization,
  ): Promise<{ organization: OrganizationEntity; adminApiKey: string }> {
    await this.requireOperator(operator, 'create organisations');
    const organization = await this.create(input, operator);
    const { key } = await this.apiKeys.create(
      { ...operator, organizationId: organization.id, mode: 'live', scopes: ALL_SCOPES },
      { name: 'Admin key', scopes: [...ALL_SCOPES], expiresAt: null, mode: 'live' },
    );
    return { organization, adminApiKey: key };
  }

  /**
   * The operator changes an organisation's name, plan, tier or agreed numbers;
   * a plan or tier change announces `account.subscription_updated` (in live
   * mode, where billing lives) in the same transaction, as the
   * `organization.updated` audit event (in the organisation's live log) is
   * written. NOT_FOUND for an unknown id.
   */
  async update(
    operator: Principal,
    publicId: string,
    changes: OrganizationChanges,
    requestId: string | null,
  ): Promise<OrganizationEntity> {
    await this.requireOperator(operator, 'change organisations');
    const id = parsePublicId('organization', publicId);
    if (id === null) throw AppError.notFound('organization', publicId);
    const updated = await this.sql.transaction(async (tx) => {
      const current = await this.organizations.findForUpdate(tx, id);
      if (!current) throw AppError.notFound('organization', publicId);
      const next: OrganizationEntity = { ...current, ...changes, updatedAt: new Date() };
      assertCustomNumbersAllowed(next, changes);
      await this.organizations.update(tx, next);
      if (next.plan !== current.plan || next.tier !== current.tier) {
        await this.events.append(
          tx,
          { organizationId: id, mode: 'live' },
          'account.subscription_updated',
          {
            organization_id: publicId,
            plan: next.plan,
            previous_plan: current.plan,
            tier: next.tier,
            previous_tier: current.tier,
            updated_at: next.updatedAt.toISOString(),
            sequence: next.updatedAt.getTime(),
          },
          requestId,
        );
      }
      // Recorded even when nothing changed: the request was made, and says so.
      await AuditLog.record(
        tx,
        { organizationId: id, mode: 'live' },
        {
          action: 'organization.updated',
          actor: operator,
          target: organizationTarget(id),
          changes: auditChanges(auditFields(current), auditFields(next)),
        },
      );
      return next;
    });
    this.limits.forget(id);
    return updated;
  }

  async get(id: string): Promise<OrganizationEntity | null> {
    return this.organizations.find(id);
  }

  /**
   * The seed the simulated engines derive this organisation's outcomes from.
   * It is set when the organisation is created and never changes, so it is
   * read once per process (dowsing needs it on every inline answer).
   */
  async engineSeed(id: string): Promise<string> {
    const cached = this.engineSeeds.get(id);
    if (cached !== undefined) return cached;
    const seed = await this.organizations.engineSeed(id);
    if (seed === null) throw new Error(`organisation ${id} does not exist`);
    // Bounded: a process serving more organisations than this reads the rest each time.
    if (this.engineSeeds.size < MAX_CACHED_SEEDS) this.engineSeeds.set(id, seed);
    return seed;
  }

  /**
   * Whether the caller acts as the operator: a live-mode credential of the
   * operator (bootstrap) organisation. Its test mode is a sandbox like any
   * other organisation's, so operator powers never reach it.
   */
  async isOperator(tenant: Tenant): Promise<boolean> {
    if (tenant.mode !== 'live') return false;
    return (await this.get(tenant.organizationId))?.isBootstrap ?? false;
  }

  /** Refuses (403) anyone but the live operator; `action` says what the caller wanted. */
  async requireOperator(tenant: Tenant, action: string): Promise<void> {
    if (await this.isOperator(tenant)) return;
    throw new AppError('FORBIDDEN', `Only the operator organisation, in live mode, can ${action}`, {
      field: 'Authorization',
      issue: 'requires a live-mode credential of the operator organisation',
    });
  }

  /**
   * The organisations a caller may list: every one, a keyset page at a time,
   * for the live operator; anyone else sees only its own, on a single page.
   * `afterId` (the previous page's last id) is asked for only when paging, so
   * a cursor sent with a single-page list is ignored, never refused.
   */
  async pageFor(
    tenant: Tenant,
    afterId: () => string | null,
    perPage: number,
  ): Promise<{ rows: OrganizationEntity[]; total: number; before: number }> {
    if (await this.isOperator(tenant)) return this.page(afterId(), perPage);
    const own = await this.get(tenant.organizationId);
    const rows = own ? [own] : [];
    return { rows, total: rows.length, before: 0 };
  }

  /**
   * A keyset page of every organisation, oldest first (ids are time-ordered),
   * with the counts a page-numbered list shows.
   */
  private async page(
    afterId: string | null,
    perPage: number,
  ): Promise<{ rows: OrganizationEntity[]; total: number; before: number }> {
    const [rows, total, before] = await Promise.all([
      this.organizations.pageAcrossTenants(afterId, perPage + 1),
      this.organizations.countAcrossTenants(),
      afterId === null
        ? Promise.resolve(0)
        : this.organizations.countBeforeAcrossTenants(afterId).then((n) => n + 1),
    ]);
    return { rows, total, before };
  }

  /**
   * The operator organisation (enterprise plan, custom tier), created on first
   * start. A unique index allows one; API instances starting together agree on it.
   */
  async ensureBootstrap(): Promise<OrganizationEntity> {
    const candidate = this.build(
      { name: 'Bootstrap organisation', plan: 'enterprise', tier: 'custom' },
      true,
    );
    await this.sql.transaction((tx) => this.organizations.insertBootstrapIfAbsent(tx, candidate));
    const organization = await this.organizations.findBootstrap();
    if (!organization) throw new Error('the bootstrap organisation is missing');
    return organization;
  }

  private build(input: NewOrganization, isBootstrap: boolean): OrganizationEntity {
    const now = new Date();
    return {
      id: newUuid(),
      name: input.name,
      plan: input.plan ?? 'free',
      tier: input.tier ?? 'basic',
      maxConcurrentSessions: input.maxConcurrentSessions ?? null,
      requestsPerMinute: input.requestsPerMinute ?? null,
      requestsPerHour: input.requestsPerHour ?? null,
      requestsPerDay: input.requestsPerDay ?? null,
      isBootstrap,
      engineSeed: randomBytes(32).toString('hex'),
      createdAt: now,
      updatedAt: now,
    };
  }
}

function organizationTarget(id: string): AuditTarget {
  return { type: 'organization', id: toPublicId('organization', id) };
}

/** What the audit log keeps of an organisation, in the API's names (agreed numbers as set). */
function auditFields(organization: OrganizationEntity): Record<string, unknown> {
  return {
    name: organization.name,
    plan: organization.plan,
    tier: organization.tier,
    max_concurrent_sessions: organization.maxConcurrentSessions,
    requests_per_minute: organization.requestsPerMinute,
    requests_per_hour: organization.requestsPerHour,
    requests_per_day: organization.requestsPerDay,
  };
}

/** What an operator may change of an organisation; null clears an agreed number. */
export type OrganizationChanges = Partial<
  Pick<
    OrganizationEntity,
    | 'name'
    | 'plan'
    | 'tier'
    | 'maxConcurrentSessions'
    | 'requestsPerMinute'
    | 'requestsPerHour'
    | 'requestsPerDay'
  >
>;

const CUSTOM_NUMBERS = [
  ['maxConcurrentSessions', 'max_concurrent_sessions', 'plan'],
  ['requestsPerMinute', 'requests_per_minute', 'plan'],
  ['requestsPerHour', 'requests_per_hour', 'tier'],
  ['requestsPerDay', 'requests_per_day', 'tier'],
] as const;

/**
 * Agreed numbers belong to agreements: the per-minute and concurrency ones to
 * the enterprise plan, the hourly and daily quotas to the enterprise and
 * custom tiers. Refused (naming the field) for anything else, whether they
 * are being set now or already set when the plan or tier changes.
 */
function assertCustomNumbersAllowed(
  organization: OrganizationEntity,
  changes: Partial<OrganizationEntity>,
): void {
  for (const [property, field, by] of CUSTOM_NUMBERS) {
    if (organization[property] === null || organization[property] === undefined) continue;
    const allowed =
      by === 'plan'
        ? organization.plan === 'enterprise'
        : organization.tier === 'enterprise' || organization.tier === 'custom';
    if (!allowed) {
      const needs = by === 'plan' ? 'the enterprise plan' : 'the enterprise or custom tier';
      const blame = property in changes ? field : by;
      throw AppError.invalid(
        blame,
        blame === field
          ? `custom numbers need ${needs}`
          : `${field} is set, which needs ${needs}; clear it (null) in the same request`,
      );
    }
  }
}
