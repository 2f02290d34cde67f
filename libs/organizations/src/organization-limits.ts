import type { OrganizationEntity, Plan, Tier } from './organization.entity.js';

/** The spec's limits by plan: a short window of requests, and concurrent sessions. */
export const PLAN_LIMITS: Record<Plan, { requestsPerMinute: number; concurrentSessions: number }> =
  {
    free: { requestsPerMinute: 60, concurrentSessions: 5 },
    pro: { requestsPerMinute: 600, concurrentSessions: 50 },
    enterprise: { requestsPerMinute: 6000, concurrentSessions: 500 },
  };

/** The spec's quotas by tier; null is unlimited. */
export const TIER_QUOTAS: Record<
  Tier,
  { requestsPerHour: number | null; requestsPerDay: number | null }
> = {
  basic: { requestsPerHour: 100, requestsPerDay: 1000 },
  professional: { requestsPerHour: 500, requestsPerDay: 5000 },
  enterprise: { requestsPerHour: 2000, requestsPerDay: 20000 },
  custom: { requestsPerHour: null, requestsPerDay: null },
};

/** What one organisation may do, per mode; null is unlimited. */
export interface OrganizationLimits {
  /** The plan they come from, for messages. */
  plan: Plan;
  requestsPerMinute: number;
  requestsPerHour: number | null;
  requestsPerDay: number | null;
  concurrentSessions: number;
}

export type LimitedOrganization = Pick<
  OrganizationEntity,
  | 'plan'
  | 'tier'
  | 'requestsPerMinute'
  | 'requestsPerHour'
  | 'requestsPerDay'
  | 'maxConcurrentSessions'
>;

/**
 * The plan's and tier's numbers, replaced by the organisation's agreed ones
 * where it has them (enterprise plans and custom tiers carry custom numbers).
 */
export function limitsOf(organization: LimitedOrganization): OrganizationLimits {
  const plan = PLAN_LIMITS[organization.plan];
  const tier = TIER_QUOTAS[organization.tier];
  return {
    plan: organization.plan,
    requestsPerMinute: organization.requestsPerMinute ?? plan.requestsPerMinute,
    requestsPerHour: organization.requestsPerHour ?? tier.requestsPerHour,
    requestsPerDay: organization.requestsPerDay ?? tier.requestsPerDay,
    concurrentSessions: organization.maxConcurrentSessions ?? plan.concurrentSessions,
  };
}
