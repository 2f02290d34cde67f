import { Injectable } from '@nestjs/common';
import { rowMapping, Sql, type Queryable, type Transaction } from '#database';
import type { OrganizationEntity } from './organization.entity.js';
import type { LimitedOrganization } from './organization-limits.js';

const ORGANIZATION = rowMapping<OrganizationEntity, OrganizationColumn>('organizations', {
  id: 'id',
  name: 'name',
  plan: 'plan',
  tier: 'tier',
  max_concurrent_sessions: 'maxConcurrentSessions',
  requests_per_minute: 'requestsPerMinute',
  requests_per_hour: 'requestsPerHour',
  requests_per_day: 'requestsPerDay',
  is_bootstrap: 'isBootstrap',
  engine_seed: 'engineSeed',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
});

type OrganizationColumn =
  | 'id'
  | 'name'
  | 'plan'
  | 'tier'
  | 'max_concurrent_sessions'
  | 'requests_per_minute'
  | 'requests_per_hour'
  | 'requests_per_day'
  | 'is_bootstrap'
  | 'engine_seed'
  | 'created_at'
  | 'updated_at';

type OrganizationRow = Record<OrganizationColumn, unknown>;

/**
 * The `organizations` table. An organisation is the tenant itself (both
 * modes share it), so methods name it `organizationId`; the operator's views
 * of every organisation end in `AcrossTenants`.
 */
@Injectable()
export class OrganizationsRepository {
  constructor(private readonly sql: Sql) {}

  async insert(tx: Transaction, organization: OrganizationEntity): Promise<void> {
    await tx.query(ORGANIZATION.insert, ORGANIZATION.toRow(organization));
  }

  /** The operator organisation; a unique index allows one, so a second insert does nothing. */
  async insertBootstrapIfAbsent(tx: Transaction, organization: OrganizationEntity): Promise<void> {
    await tx.query(
      `${ORGANIZATION.insert} ON CONFLICT DO NOTHING`,
      ORGANIZATION.toRow(organization),
    );
  }

  async findBootstrap(on: Queryable = this.sql): Promise<OrganizationEntity | null> {
    const [row] = await on.rows<OrganizationRow>(
      `SELECT ${ORGANIZATION.selectList} FROM organizations WHERE is_bootstrap LIMIT 1`,
    );
    return row ? ORGANIZATION.fromRow(row) : null;
  }

  async find(organizationId: string, on: Queryable = this.sql): Promise<OrganizationEntity | null> {
    const [row] = await on.rows<OrganizationRow>(
      `SELECT ${ORGANIZATION.selectList} FROM organizations WHERE id = $1 LIMIT 1`,
      [organizationId],
    );
    return row ? ORGANIZATION.fromRow(row) : null;
  }

  /** The organisation, its row locked until `tx` ends, so concurrent changes see each other. */
  async findForUpdate(tx: Transaction, organizationId: string): Promise<OrganizationEntity | null> {
    const [row] = await tx.rows<OrganizationRow>(
      `SELECT ${ORGANIZATION.selectList} FROM organizations WHERE id = $1 LIMIT 1 FOR UPDATE`,
      [organizationId],
    );
    return row ? ORGANIZATION.fromRow(row) : null;
  }

  /**
   * Locks the organisation's row until `tx` ends: what serialises changes
   * that must see one another across the organisation (its last admin).
   */
  async lock(tx: Transaction, organizationId: string): Promise<void> {
    await tx.query(`SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE`, [organizationId]);
  }

  /** Writes what an operator may change of an organisation (OrganizationChanges) and `updatedAt`. */
  async update(tx: Transaction, organization: OrganizationEntity): Promise<void> {
    await tx.query(
      `UPDATE organizations SET name = $2, plan = $3, tier = $4, max_concurrent_sessions = $5,
          requests_per_minute = $6, requests_per_hour = $7, requests_per_day = $8, updated_at = $9
        WHERE id = $1`,
      [
        organization.id,
        organization.name,
        organization.plan,
        organization.tier,
        organization.maxConcurrentSessions,
        organization.requestsPerMinute,
        organization.requestsPerHour,
        organization.requestsPerDay,
        organization.updatedAt,
      ],
    );
  }

  async engineSeed(organizationId: string, on: Queryable = this.sql): Promise<string | null> {
    const [row] = await on.rows<{ engine_seed: string }>(
      `SELECT engine_seed FROM organizations WHERE id = $1 LIMIT 1`,
      [organizationId],
    );
    return row?.engine_seed ?? null;
  }

  /** What the organisation's limits are made of (organization-limits.ts), or null when it does not exist. */
  async limits(
    organizationId: string,
    on: Queryable = this.sql,
  ): Promise<LimitedOrganization | null> {
    const [row] = await on.rows<{
      plan: LimitedOrganization['plan'];
      tier: LimitedOrganization['tier'];
      requests_per_minute: number | null;
      requests_per_hour: number | null;
      requests_per_day: number | null;
      max_concurrent_sessions: number | null;
    }>(
      `SELECT plan, tier, requests_per_minute, requests_per_hour, requests_per_day,
              max_concurrent_sessions
         FROM organizations WHERE id = $1 LIMIT 1`,
      [organizationId],
    );
    return row
      ? {
          plan: row.plan,
          tier: row.tier,
          requestsPerMinute: row.requests_per_minute,
          requestsPerHour: row.requests_per_hour,
          requestsPerDay: row.requests_per_day,
          maxConcurrentSessions: row.max_concurrent_sessions,
        }
      : null;
  }

  /** Up to `limit` organisations after `afterId` (all when null), oldest first (ids are time-ordered). */
  async pageAcrossTenants(
    afterId: string | null,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<OrganizationEntity[]> {
    const rows = await on.rows<OrganizationRow>(
      `SELECT ${ORGANIZATION.selectList} FROM organizations
        WHERE $1::uuid IS NULL OR id > $1 ORDER BY id ASC LIMIT $2`,
      [afterId, limit],
    );
    return rows.map((row) => ORGANIZATION.fromRow(row));
  }

  async countAcrossTenants(on: Queryable = this.sql): Promise<number> {
    const [row] = await on.rows<{ count: number }>(
      `SELECT count(*)::int AS count FROM organizations`,
    );
    return row!.count;
  }

  /** How many organisations come before `id` in the operator's list. */
  async countBeforeAcrossTenants(id: string, on: Queryable = this.sql): Promise<number> {
    const [row] = await on.rows<{ count: number }>(
      `SELECT count(*)::int AS count FROM organizations WHERE id < $1`,
      [id],
    );
    return row!.count;
  }

  /** The ids of every organisation, or of `only` alone (none when it does not exist). */
  async idsAcrossTenants(only: string | null, on: Queryable = this.sql): Promise<string[]> {
    const rows = await on.rows<{ id: string }>(
      `SELECT id FROM organizations WHERE $1::uuid IS NULL OR id = $1`,
      [only],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Whether an organisation of this id exists; any text may be given (a
   * malformed one is no match, not an error), as a command line takes it.
   */
  async exists(organizationId: string, on: Queryable = this.sql): Promise<boolean> {
    const rows = await on.rows(`SELECT id FROM organizations WHERE id::text = $1`, [
      organizationId,
    ]);
    return rows.length > 0;
  }
}
