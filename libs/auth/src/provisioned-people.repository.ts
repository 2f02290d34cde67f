import { Injectable } from '@nestjs/common';
import { Sql, type Queryable, type Transaction } from '#database';
import type { MemberRole } from './entities/user.entity.js';

/** A person as SCIM provisioning sees them. */
export interface ProvisionedPerson {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  externalId: string | null;
  /** Null for a person SCIM does not manage (yet, or any more). */
  provisionedAt: Date | null;
  disabledAt: Date | null;
  roles: MemberRole[];
  groups: string[];
  scopes: string[] | null;
  ssoConnectionId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A new person, as SCIM creates them. */
export interface NewProvisionedPerson {
  id: string;
  email: string;
  name: string;
  externalId: string | null;
  active: boolean;
  roles: MemberRole[];
  scopes: string[];
  ssoConnectionId: string | null;
}

/** What SCIM changes of a person; absent fields stay. */
export interface ProvisionedChange {
  email?: string;
  name?: string;
  externalId?: string | null;
  active?: boolean;
  /** False: SCIM lets go of the person (a SCIM DELETE). */
  provisioned?: boolean;
  groups?: string[];
  scopes?: string[];
}

const SELECT = `SELECT id, organization_id, email, name, scim_external_id, scim_provisioned_at,
  disabled_at, roles, groups, scopes, sso_connection_id, created_at, updated_at FROM users`;

interface Row {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  scim_external_id: string | null;
  scim_provisioned_at: Date | null;
  disabled_at: Date | null;
  roles: MemberRole[];
  groups: string[];
  scopes: string[] | null;
  sso_connection_id: string | null;
  created_at: Date;
  updated_at: Date;
}

function personOf(row: Row): ProvisionedPerson {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    name: row.name,
    externalId: row.scim_external_id,
    provisionedAt: row.scim_provisioned_at,
    disabledAt: row.disabled_at,
    roles: row.roles,
    groups: row.groups,
    scopes: row.scopes,
    ssoConnectionId: row.sso_connection_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The `users` table as SCIM provisioning reads and writes it: the people an
 * identity provider manages (`scim_provisioned_at` set), found by id or by
 * email, created, changed field by field under a row lock.
 */
@Injectable()
export class ProvisionedPeopleRepository {
  constructor(private readonly sql: Sql) {}

  /** The organisation's SCIM-managed people, oldest first; one email's when `email` is given. */
  async list(organizationId: string, email?: string): Promise<ProvisionedPerson[]> {
    const rows = await this.sql.rows<Row>(
      `${SELECT} WHERE organization_id = $1 AND scim_provisioned_at IS NOT NULL
         AND ($2::text IS NULL OR email = lower($2))
       ORDER BY created_at, id`,
      [organizationId, email ?? null],
    );
    return rows.map(personOf);
  }

  /** Of these ids, the organisation's SCIM-managed people (a group's members, to name them). */
  async findMany(organizationId: string, ids: string[]): Promise<ProvisionedPerson[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql.rows<Row>(
      `${SELECT} WHERE id = ANY($1::uuid[]) AND organization_id = $2
         AND scim_provisioned_at IS NOT NULL`,
      [ids, organizationId],
    );
    return rows.map(personOf);
  }

  /** A SCIM-managed person of the organisation. */
  async find(organizationId: string, id: string, on: Queryable = this.sql) {
    const [row] = await on.rows<Row>(
      `${SELECT} WHERE id = $1 AND organization_id = $2 AND scim_provisioned_at IS NOT NULL`,
      [id, organizationId],
    );
    return row ? personOf(row) : null;
  }

  /**
   * The person of this email, whatever organisation and whether SCIM manages
   * them, locked: emails are unique across organisations, so SCIM must see
   * another organisation's to refuse it.
   */
  async lockByEmailAcrossTenants(
    tx: Transaction,
    email: string,
  ): Promise<ProvisionedPerson | null> {
    const [row] = await tx.rows<Row>(`${SELECT} WHERE email = lower($1) FOR UPDATE`, [email]);
    return row ? personOf(row) : null;
  }

  /** A SCIM-managed person, locked for a change: two changes of one person take turns. */
  async lock(tx: Transaction, organizationId: string, id: string) {
    const [row] = await tx.rows<Row>(
      `${SELECT} WHERE id = $1 AND organization_id = $2 AND scim_provisioned_at IS NOT NULL
       FOR UPDATE`,
      [id, organizationId],
    );
    return row ? personOf(row) : null;
  }

  /** Of these ids, the SCIM-managed people of the organisation, locked (a group's new members). */
  async lockMany(tx: Transaction, organizationId: string, ids: string[]) {
    if (ids.length === 0) return [];
    const rows = await tx.rows<Row>(
      `${SELECT} WHERE id = ANY($1::uuid[]) AND organization_id = $2
         AND scim_provisioned_at IS NOT NULL
       ORDER BY id FOR UPDATE`,
      [ids, organizationId],
    );
    return rows.map(personOf);
  }

  async insert(
    tx: Transaction,
    organizationId: string,
    person: NewProvisionedPerson,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO users (id, organization_id, email, name, roles, scopes, sso_connection_id,
         scim_external_id, scim_provisioned_at, disabled_at)
       VALUES ($1, $2, lower($3), $4, $5, $6, $7, $8, now(), CASE WHEN $9 THEN NULL ELSE now() END)`,
      [
        person.id,
        organizationId,
        person.email,
        person.name,
        person.roles,
        person.scopes,
        person.ssoConnectionId,
        person.externalId,
        person.active,
      ],
    );
  }

  /** Applies `change` to a person (locked by the caller); SCIM takes charge of them if it had not. */
  async update(
    tx: Transaction,
    organizationId: string,
    id: string,
    change: ProvisionedChange,
  ): Promise<void> {
    await tx.query(
      `UPDATE users SET
         email = COALESCE(lower($2), email),
         name = COALESCE($3, name),
         scim_external_id = CASE WHEN $4 THEN $5 ELSE scim_external_id END,
         disabled_at = CASE WHEN $6::boolean IS NULL THEN disabled_at
                            WHEN $6 THEN NULL
                            ELSE COALESCE(disabled_at, now()) END,
         scim_provisioned_at = CASE WHEN $7::boolean IS NULL THEN COALESCE(scim_provisioned_at, now())
                                    WHEN $7 THEN COALESCE(scim_provisioned_at, now())
                                    ELSE NULL END,
         groups = COALESCE($8, groups),
         scopes = COALESCE($9, scopes),
         updated_at = now()
       WHERE id = $1 AND organization_id = $10`,
      [
        id,
        change.email ?? null,
        change.name ?? null,
        change.externalId !== undefined,
        change.externalId ?? null,
        change.active ?? null,
        change.provisioned ?? null,
        change.groups ?? null,
        change.scopes ?? null,
        organizationId,
      ],
    );
  }
}
