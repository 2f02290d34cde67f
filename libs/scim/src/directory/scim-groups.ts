import { Injectable } from '@nestjs/common';
import { ProvisionedPeopleRepository, type ProvisionedPerson } from '#auth';
import { newKey, parsePublicId, toPublicId } from '#common';
import { Sql, type Transaction } from '#database';
import { AuditLog, auditChanges } from '#events';
import { scopesOfGroups, SsoSignInService } from '#sso';
import { ScimGroupsRepository, type ScimGroup } from './scim-groups.repository.js';
import { ScimError } from './scim-protocol.js';
import {
  equalityOf,
  live,
  notFound,
  scimActor,
  type ScimCaller,
  type ScimContext,
  type ScimFilter,
  type ScimResourceHandlers,
} from './scim-context.js';

const MAX_DISPLAY_NAME_LENGTH = 256;

/**
 * SCIM Groups (RFC 7643 §4.2). A person's groups are the display names of
 * the groups they are in; through the organisation's SSO connection for
 * their email's domain they map to scopes exactly as SAML and LDAP groups do
 * (`scopesOfGroups`). Every change of membership rewrites the groups and
 * scopes of the people it touches, in its transaction.
 */
@Injectable()
export class ScimGroups implements ScimResourceHandlers {
  constructor(
    private readonly sql: Sql,
    private readonly groups: ScimGroupsRepository,
    private readonly people: ProvisionedPeopleRepository,
    private readonly sso: SsoSignInService,
  ) {}

  async egress(
    id: string | undefined,
    filter: ScimFilter | undefined,
    ctx: ScimContext,
  ): Promise<object | object[]> {
    const { organizationId } = ctx.caller;
    if (id !== undefined) {
      const group = await this.groups.find(organizationId, this.uuidOf(id));
      if (!group) throw notFound(id);
      const [resource] = await this.resources(organizationId, [group]);
      ctx.snapshot = resource;
      return resource!;
    }
    const displayName = equalityOf(filter, 'displayName');
    const groups = await this.groups.list(organizationId, displayName ?? undefined);
    const resources = await this.resources(organizationId, groups);
    return filter === undefined || displayName !== null ? resources : filter.match(resources);
  }

  async ingress(
    id: string | undefined,
    instance: Record<string, unknown>,
    ctx: ScimContext,
  ): Promise<object> {
    const { organizationId } = ctx.caller;
    const uuid = await this.sql.transaction((tx) =>
      id === undefined ? this.create(tx, instance, ctx.caller) : this.update(tx, id, instance, ctx),
    );
    const group = await this.groups.find(organizationId, uuid);
    const [resource] = await this.resources(organizationId, [group!]);
    return resource!;
  }

  async degress(id: string, ctx: ScimContext): Promise<void> {
    const { organizationId } = ctx.caller;
    const uuid = this.uuidOf(id);
    await this.sql.transaction(async (tx) => {
      const group = await this.groups.lock(tx, organizationId, uuid);
      if (!group) throw notFound(id);
      await this.groups.delete(tx, organizationId, uuid);
      await AuditLog.record(tx, live(organizationId), {
        action: 'group.deleted',
        actor: scimActor(ctx.caller),
        target: { type: 'group', id },
        changes: { display_name: { before: group.displayName, after: null } },
      });
      await this.regroup(tx, ctx.caller, group.memberIds);
    });
  }

  private async create(
    tx: Transaction,
    instance: Record<string, unknown>,
    caller: ScimCaller,
  ): Promise<string> {
    const displayName = displayNameOf(instance);
    if (await this.groups.nameTaken(tx, caller.organizationId, displayName, null)) {
      throw nameTaken(displayName);
    }
    const members = await this.membersOf(tx, caller, instance);
    const { uuid, id } = newKey('scimGroup');
    const externalId = typeof instance.externalId === 'string' ? instance.externalId : null;
    await this.groups.insert(tx, caller.organizationId, {
      id: uuid,
      displayName,
      externalId,
    });
    await this.groups.addMembers(tx, uuid, members);
    await AuditLog.record(tx, live(caller.organizationId), {
      action: 'group.created',
      actor: scimActor(caller),
      target: { type: 'group', id },
      changes: auditChanges({}, { display_name: displayName, external_id: externalId }),
      details: { members_added: members.map((member) => toPublicId('user', member)) },
    });
    await this.regroup(tx, caller, members);
    return uuid;
  }

  /**
   * A PUT (the members it lists) or a PATCH (the members the patch added to
   * or removed from the group it read: `ctx.snapshot`), applied to the group
   * as it is now, under its row lock: of two changes racing for one group,
   * each keeps the members the other added.
   */
  private async update(
    tx: Transaction,
    id: string,
    instance: Record<string, unknown>,
    ctx: ScimContext,
  ): Promise<string> {
    const { caller } = ctx;
    const uuid = this.uuidOf(id);
    const group = await this.groups.lock(tx, caller.organizationId, uuid);
    if (!group) throw notFound(id);
    const wanted = new Set(await this.membersOf(tx, caller, instance));
    const base = new Set(ctx.snapshot ? memberIdsOf(ctx.snapshot) : group.memberIds);
    const added = [...wanted].filter((member) => !base.has(member));
    const removed = [...base].filter((member) => !wanted.has(member));
    const displayName = displayNameOf(instance);
    const renamed = displayName !== (ctx.snapshot?.displayName ?? group.displayName);
    if (renamed && (await this.groups.nameTaken(tx, caller.organizationId, displayName, uuid))) {
      throw nameTaken(displayName);
    }
    const externalId =
      typeof instance.externalId === 'string' ? instance.externalId : group.externalId;
    await this.groups.update(tx, caller.organizationId, uuid, {
      ...(renamed ? { displayName } : {}),
      externalId,
    });
    await this.groups.addMembers(tx, uuid, added);
    await this.groups.removeMembers(tx, uuid, removed);
    await AuditLog.record(tx, live(caller.organizationId), {
      action: 'group.updated',
      actor: scimActor(caller),
      target: { type: 'group', id },
      changes: auditChanges(
        { display_name: group.displayName, external_id: group.externalId },
        { display_name: renamed ? displayName : group.displayName, external_id: externalId },
      ),
      details: {
        members_added: added.map((member) => toPublicId('user', member)),
        members_removed: removed.map((member) => toPublicId('user', member)),
      },
    });
    // A rename changes every member's groups; otherwise only the people who came or went.
    await this.regroup(
      tx,
      caller,
      renamed ? [...group.memberIds, ...added] : [...added, ...removed],
    );
    return uuid;
  }

  /**
   * The people's `groups` as their memberships now are, and the scopes those
   * map to through the organisation's connection for their domain (none
   * without one), each change recorded.
   */
  private async regroup(tx: Transaction, caller: ScimCaller, userIds: string[]): Promise<void> {
    const people = await this.people.lockMany(tx, caller.organizationId, [...new Set(userIds)]);
    const memberships = await this.groups.groupsOf(
      caller.organizationId,
      people.map((person) => person.id),
      tx,
    );
    for (const person of people) {
      const groups = (memberships.get(person.id) ?? []).map((group) => group.displayName).sort();
      const scopes = await this.scopesOf(caller.organizationId, person, groups);
      const changes = auditChanges(
        { groups: person.groups, scopes: person.scopes },
        { groups, scopes },
      );
      if (changes === null) continue;
      await this.people.update(tx, caller.organizationId, person.id, { groups, scopes });
      await AuditLog.record(tx, live(caller.organizationId), {
        action: 'person.updated',
        actor: scimActor(caller),
        target: { type: 'person', id: toPublicId('user', person.id) },
        changes,
        details: { source: 'scim' },
      });
    }
  }

  private async scopesOf(
    organizationId: string,
    person: ProvisionedPerson,
    groups: string[],
  ): Promise<string[]> {
    const connection = await this.sso.connectionForEmail(person.email);
    if (!connection || connection.organizationId !== organizationId) return [];
    return scopesOfGroups(connection, groups);
  }

  /** The people a Group's `members` name, each a SCIM-managed person of the organisation. */
  private async membersOf(
    tx: Transaction,
    caller: ScimCaller,
    instance: Record<string, unknown>,
  ): Promise<string[]> {
    const values = memberValuesOf(instance);
    const listed = [...new Set(values.filter((id): id is string => id !== null))];
    const found = await this.people.lockMany(tx, caller.organizationId, listed);
    if (values.includes(null) || found.length !== listed.length) {
      throw new ScimError(
        400,
        'invalidValue',
        'members must be Users of this service provider (their id in `value`)',
      );
    }
    return listed;
  }

  private async resources(organizationId: string, groups: ScimGroup[]) {
    // Only the members are named: not every person of the organisation for one group.
    const memberIds = [...new Set(groups.flatMap((group) => group.memberIds))];
    const people = new Map(
      (await this.people.findMany(organizationId, memberIds)).map((person) => [person.id, person]),
    );
    return groups.map((group) => groupResource(group, people));
  }

  private uuidOf(id: string): string {
    const uuid = parsePublicId('scimGroup', id);
    if (uuid === null) throw notFound(id);
    return uuid;
  }
}

function groupResource(group: ScimGroup, people: Map<string, ProvisionedPerson>) {
  return {
    id: toPublicId('scimGroup', group.id),
    ...(group.externalId === null ? {} : { externalId: group.externalId }),
    displayName: group.displayName,
    members: group.memberIds.map((member) => ({
      value: toPublicId('user', member),
      ...(people.has(member) ? { display: people.get(member)!.name } : {}),
      type: 'User',
    })),
    meta: { created: group.createdAt, lastModified: group.updatedAt },
  };
}

function displayNameOf(instance: Record<string, unknown>): string {
  const name = instance.displayName;
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_DISPLAY_NAME_LENGTH) {
    throw new ScimError(
      400,
      'invalidValue',
      `displayName must be 1–${MAX_DISPLAY_NAME_LENGTH} characters`,
    );
  }
  return name.trim();
}

/** The stored id of each person a Group's `members` names; null for a value that names no person. */
function memberValuesOf(instance: Record<string, unknown>): (string | null)[] {
  const members = Array.isArray(instance.members) ? instance.members : [];
  return members.map((member: { value?: unknown }) =>
    typeof member?.value === 'string' ? parsePublicId('user', member.value) : null,
  );
}

/** The stored ids of the people a Group's `members` name. */
function memberIdsOf(instance: Record<string, unknown>): string[] {
  return [...new Set(memberValuesOf(instance).filter((id): id is string => id !== null))];
}

function nameTaken(name: string) {
  return new ScimError(409, 'uniqueness', `displayName ${name} is already taken`);
}
