import { Injectable } from '@nestjs/common';
import { limitsOf, type OrganizationLimits } from './organization-limits.js';
import { OrganizationsRepository } from './organizations.repository.js';

/** How long an organisation's limits are trusted from memory; a change reaches every instance within it. */
export const LIMITS_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** Every request needs its organisation's limits; they change rarely, so each instance keeps them briefly. */
@Injectable()
export class OrganizationLimitsCache {
  private readonly entries = new Map<string, { limits: OrganizationLimits; cachedAt: number }>();

  constructor(private readonly organizations: OrganizationsRepository) {}

  /** The organisation's limits, or null when it does not exist. */
  async get(organizationId: string): Promise<OrganizationLimits | null> {
    const entry = this.entries.get(organizationId);
    if (entry && Date.now() - entry.cachedAt < LIMITS_TTL_MS) return entry.limits;
    const row = await this.organizations.limits(organizationId);
    if (!row) return null;
    const limits = limitsOf(row);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(organizationId, { limits, cachedAt: Date.now() });
    return limits;
  }

  /** Forgets this instance's copy (the instance that changed the limits sees the change at once). */
  forget(organizationId: string): void {
    this.entries.delete(organizationId);
  }
}
