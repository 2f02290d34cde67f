import { Injectable } from '@nestjs/common';
import { Sql, type Queryable, type Transaction } from '#database';

/** A SCIM group with its members' user ids. */
export interface ScimGroup {
  id: string;
  organizationId: string;
  displayName: string;
  externalId: string | null;
  memberIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  organization_id: string;
  display_name: string;
  external_id: string | null;
  member_ids: string[];
  created_at: Date;
  updated_at: Date;
}

const SELECT = `SELECT g.id, g.organization_id, g.display_name, g.external_id, g.created_at, g.updated_at,
  COALESCE((SELECT array_agg(m.user_id ORDER BY m.user_id) FROM scim_group_members m
             WHERE m.group_id = g.id), '{}') AS member_ids
  FROM scim_groups g`;

function groupOf(row: Row): ScimGroup {
  return {
    id: row.id,
    organizationId: row.organization_id,
    displayName: row.display_name,
    externalId: row.external_id,
    memberIds: row.member_ids,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** `scim_groups` and `scim_group_members`: the groups an identity provider pushes, and who is in them. */
@Injectable()
export class ScimGroupsRepository {
  constructor(private readonly sql: Sql) {}

  /** The organisation's groups, oldest first; one name's (without regard to case) when given. */
  async list(organizationId: string, displayName?: string): Promise<ScimGroup[]> {
    const rows = await this.sql.rows<Row>(
      `${SELECT} WHERE g.organization_id = $1
         AND ($2::text IS NULL OR lower(g.display_name) = lower($2))
       ORDER BY g.created_at, g.id`,
      [organizationId, displayName ?? null],
    );
    return rows.map(groupOf);
  }

  async find(organizationId: string, id: string, on: Queryable = this.sql) {
    const [row] = await on.rows<Row>(`${SELECT} WHERE g.id = $1 AND g.organization_id = $2`, [
      id,
      organizationId,
    ]);
    return row ? groupOf(row) : null;
  }

  /** A group locked for a change: two changes of one group take turns. */
  async lock(tx: Transaction, organizationId: string, id: string): Promise<ScimGroup | null> {
    const locked = await tx.rows<{ id: string }>(
      'SELECT id FROM scim_groups WHERE id = $1 AND organization_id = $2 FOR UPDATE',
      [id, organizationId],
    );
    return locked.length === 0 ? null : this.find(organizationId, id, tx);
  }

  /** Whether another group of the organisation has this name (without regard to case). */
  async nameTaken(tx: Transaction, organizationId: string, name: string, exceptId: string | null) {
    const rows = await tx.rows(
      `SELECT 1 FROM scim_groups WHERE organization_id = $1 AND lower(display_name) = lower($2)
         AND ($3::uuid IS NULL OR id <> $3)`,
      [organizationId, name, exceptId],
    );
    return rows.length > 0;
  }

  async insert(
    tx: Transaction,
    organizationId: string,
    group: { id: string; displayName: string; externalId: string | null },
  ): Promise<void> {
    await tx.query(
      `INSERT INTO scim_groups (id, organization_id, display_name, external_id) VALUES ($1, $2, $3, $4)`,
      [group.id, organizationId, group.displayName, group.externalId],
    );
  }

  async update(
    tx: Transaction,
    organizationId: string,
    id: string,
    change: { displayName?: string; externalId?: string | null },
  ): Promise<void> {
    await tx.query(
      `UPDATE scim_groups SET display_name = COALESCE($2, display_name),
         external_id = CASE WHEN $3 THEN $4 ELSE external_id END, updated_at = now()
       WHERE id = $1 AND organization_id = $5`,
      [
        id,
        change.displayName ?? null,
        change.externalId !== undefined,
        change.externalId ?? null,
        organizationId,
      ],
    );
  }

  async delete(tx: Transaction, organizationId: string, id: string): Promise<void> {
    await tx.query('DELETE FROM scim_groups WHERE id = $1 AND organization_id = $2', [
      id,
      organizationId,
    ]);
  }

  async addMembers(tx: Transaction, groupId: string, userIds: string[]): Promise<void> {
    if (userIds.length === 0) return;
    await tx.query(
      `INSERT INTO scim_group_members (group_id, user_id) SELECT $1, unnest($2::uuid[])
       ON CONFLICT DO NOTHING`,
      [groupId, userIds],
    );
  }

  async removeMembers(tx: Transaction, groupId: string, userIds: string[]): Promise<void> {
    if (userIds.length === 0) return;
    await tx.query(
      'DELETE FROM scim_group_members WHERE group_id = $1 AND user_id = ANY($2::uuid[])',
      [groupId, userIds],
    );
  }

  /** Takes a person out of every group (SCIM let go of them). */
  async removeFromEvery(tx: Transaction, userId: string): Promise<void> {
    await tx.query('DELETE FROM scim_group_members WHERE user_id = $1', [userId]);
  }

  /** The groups (id and name) of each of these people. */
  async groupsOf(
    organizationId: string,
    userIds: string[],
    on: Queryable = this.sql,
  ): Promise<Map<string, { id: string; displayName: string }[]>> {
    const groups = new Map<string, { id: string; displayName: string }[]>(
      userIds.map((id) => [id, []]),
    );
    if (userIds.length === 0) return groups;
    const rows = await on.rows<{ user_id: string; id: string; display_name: string }>(
      `SELECT m.user_id, g.id, g.display_name FROM scim_group_members m
         JOIN scim_groups g ON g.id = m.group_id
        WHERE m.user_id = ANY($1::uuid[]) AND g.organization_id = $2
        ORDER BY g.display_name, g.id`,
      [userIds, organizationId],
    );
    for (const row of rows)
      groups.get(row.user_id)?.push({ id: row.id, displayName: row.display_name });
    return groups;
  }
}
