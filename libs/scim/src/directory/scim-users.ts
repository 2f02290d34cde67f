import { Injectable } from '@nestjs/common';
import { ProvisionedPeopleRepository, type MemberRole, type ProvisionedPerson } from '#auth';
import { newKey, parsePublicId, toPublicId } from '#common';
import { Sql, type Transaction } from '#database';
import { AuditLog, auditChanges } from '#events';
import { SsoSignInService, type SsoConnection } from '#sso';
import { MemberConsequences } from '#analysts';
import { ScimGroupsRepository } from './scim-groups.repository.js';
import { ScimError } from './scim-protocol.js';
import {
  equalityOf,
  live,
  notFound,
  scimActor,
  type ScimContext,
  type ScimFilter,
  type ScimResourceHandlers,
} from './scim-context.js';
import { scopesOfGroups } from '#sso';

/** What a SCIM User says of a person that this service keeps. */
interface PersonFields {
  email: string;
  name: string;
  externalId: string | null;
  active: boolean;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
const MAX_NAME_LENGTH = 200;
/** People an identity provider adds get the least reach until an admin gives them more. */
const DEFAULT_ROLES: MemberRole[] = ['analyst'];

/**
 * SCIM Users (RFC 7643 §4.1) as people of the token's organisation. A SCIM
 * user is a person matched by email: a person the organisation already has
 * is taken under SCIM's management rather than duplicated. `active: false`
 * and DELETE disable them at once: their refresh tokens and grants end and
 * their open work goes back (MemberConsequences); a
 * DELETE also lets go of them, so SCIM no longer finds them.
 */
@Injectable()
export class ScimUsers implements ScimResourceHandlers {
  constructor(
    private readonly sql: Sql,
    private readonly people: ProvisionedPeopleRepository,
    private readonly groups: ScimGroupsRepository,
    private readonly sso: SsoSignInService,
    private readonly consequences: MemberConsequences,
  ) {}

  async egress(
    id: string | undefined,
    filter: ScimFilter | undefined,
    ctx: ScimContext,
  ): Promise<object | object[]> {
    const { organizationId } = ctx.caller;
    if (id !== undefined) {
      const person = await this.people.find(organizationId, this.uuidOf(id));
      if (!person) throw notFound(id);
      const [resource] = await this.resources(organizationId, [person]);
      ctx.snapshot = resource;
      return resource!;
    }
    // `userName eq "…"` — what Okta and Entra ID ask before creating — is one indexed lookup.
    const userName = equalityOf(filter, 'userName');
    const people = await this.people.list(organizationId, userName ?? undefined);
    const resources = await this.resources(organizationId, people);
    return filter === undefined || userName !== null ? resources : filter.match(resources);
  }

  async ingress(
    id: string | undefined,
    instance: Record<string, unknown>,
    ctx: ScimContext,
  ): Promise<object> {
    const uuid =
      id === undefined ? await this.create(instance, ctx) : await this.update(id, instance, ctx);
    const person = await this.people.find(ctx.caller.organizationId, uuid);
    const [resource] = await this.resources(ctx.caller.organizationId, [person!]);
    return resource!;
  }

  async degress(id: string, ctx: ScimContext): Promise<void> {
    const { organizationId } = ctx.caller;
    const uuid = this.uuidOf(id);
    const before = await this.sql.transaction(async (tx) => {
      const person = await this.people.lock(tx, organizationId, uuid);
      if (!person) throw notFound(id);
      await this.people.update(tx, organizationId, uuid, {
        active: false,
        provisioned: false,
        groups: [],
      });
      await this.groups.removeFromEvery(tx, uuid);
      await AuditLog.record(tx, live(organizationId), {
        action: 'person.removed',
        actor: scimActor(ctx.caller),
        target: { type: 'person', id },
        details: { source: 'scim' },
      });
      return person;
    });
    await this.afterChange(before, { ...before, disabledAt: before.disabledAt ?? new Date() });
  }

  /** A new person, or one the organisation has that SCIM now manages; their id. */
  private async create(instance: Record<string, unknown>, ctx: ScimContext): Promise<string> {
    const { organizationId } = ctx.caller;
    const fields = fieldsOf(instance, null);
    const connection = await this.connectionFor(organizationId, fields.email);
    const outcome = await this.sql.transaction(async (tx) => {
      const existing = await this.people.lockByEmailAcrossTenants(tx, fields.email);
      if (existing && existing.organizationId !== organizationId) throw userNameTaken();
      if (existing && existing.provisionedAt !== null) {
        throw new ScimError(
          409,
          'uniqueness',
          `userName ${fields.email} is already provisioned as ${toPublicId('user', existing.id)}`,
        );
      }
      if (existing) {
        await this.change(tx, existing, fields, ctx, { source: 'scim', linked: true });
        return { id: existing.id, before: existing };
      }
      const { uuid, id } = newKey('user');
      await this.people.insert(tx, organizationId, {
        id: uuid,
        email: fields.email,
        name: fields.name,
        externalId: fields.externalId,
        active: fields.active,
        roles: connection?.jitRoles ?? DEFAULT_ROLES,
        scopes: connection ? scopesOfGroups(connection, []) : [],
        ssoConnectionId: connection?.id ?? null,
      });
      await AuditLog.record(tx, live(organizationId), {
        action: 'person.created',
        actor: scimActor(ctx.caller),
        target: { type: 'person', id },
        changes: auditChanges(
          {},
          {
            email: fields.email,
            name: fields.name,
            external_id: fields.externalId,
            active: fields.active,
            roles: connection?.jitRoles ?? DEFAULT_ROLES,
          },
        ),
        details: { source: 'scim' },
      });
      return { id: uuid, before: null };
    });
    if (outcome.before) {
      const after = await this.people.find(organizationId, outcome.id);
      await this.afterChange(outcome.before, after!);
    }
    return outcome.id;
  }

  /**
   * A PUT (every field it names) or a PATCH (what the patch changed of the
   * resource it read: `ctx.snapshot`), applied to the person as they are
   * now, under their row lock: of two changes racing for one person, each
   * keeps the other's fields.
   */
  private async update(id: string, instance: Record<string, unknown>, ctx: ScimContext) {
    const { organizationId } = ctx.caller;
    const uuid = this.uuidOf(id);
    const before = await this.sql.transaction(async (tx) => {
      const person = await this.people.lock(tx, organizationId, uuid);
      if (!person) throw notFound(id);
      const wanted = fieldsOf(instance, person);
      const base = ctx.snapshot ? fieldsOf(ctx.snapshot, person) : stored(person);
      const changed = Object.fromEntries(
        Object.entries(wanted).filter(
          ([field, value]) =>
            JSON.stringify(value) !== JSON.stringify(base[field as keyof PersonFields]),
        ),
      ) as Partial<PersonFields>;
      if (changed.email !== undefined && changed.email !== person.email) {
        const holder = await this.people.lockByEmailAcrossTenants(tx, changed.email);
        if (holder && holder.id !== uuid) throw userNameTaken();
      }
      await this.change(tx, person, { ...stored(person), ...changed }, ctx, { source: 'scim' });
      return person;
    });
    const after = await this.people.find(organizationId, uuid);
    await this.afterChange(before, after!);
    return uuid;
  }

  /** Writes `next` over `person` with its audit events: the fields, and a disabling or enabling. */
  private async change(
    tx: Transaction,
    person: ProvisionedPerson,
    next: PersonFields,
    ctx: ScimContext,
    details: Record<string, unknown>,
  ): Promise<void> {
    const current = stored(person);
    await this.people.update(tx, person.organizationId, person.id, {
      email: next.email,
      name: next.name,
      externalId: next.externalId,
      active: next.active,
      provisioned: true,
    });
    const target = { type: 'person', id: toPublicId('user', person.id) };
    const tenant = live(person.organizationId);
    const changes = auditChanges(
      { email: current.email, name: current.name, external_id: current.externalId },
      { email: next.email, name: next.name, external_id: next.externalId },
    );
    if (changes !== null || details.linked === true) {
      await AuditLog.record(tx, tenant, {
        action: 'person.updated',
        actor: scimActor(ctx.caller),
        target,
        changes,
        details,
      });
    }
    if (next.active !== current.active) {
      await AuditLog.record(tx, tenant, {
        action: next.active ? 'person.enabled' : 'person.disabled',
        actor: scimActor(ctx.caller),
        target,
        changes: { active: { before: current.active, after: next.active } },
        details,
      });
    }
  }

  /** Once committed: a person disabled now loses their sessions and grants, and their open work (MemberConsequences). */
  private async afterChange(before: ProvisionedPerson, after: ProvisionedPerson): Promise<void> {
    const wasDisabled = before.disabledAt !== null;
    const isDisabled = after.disabledAt !== null;
    if (wasDisabled !== isDisabled) {
      await this.consequences.apply(
        {
          organizationId: after.organizationId,
          userId: after.id,
          before: { roles: before.roles, disabled: wasDisabled },
          after: { roles: after.roles, disabled: isDisabled },
        },
        null,
      );
    }
  }

  /** The organisation's connection for the email's domain; refused when another organisation proved it. */
  private async connectionFor(
    organizationId: string,
    email: string,
  ): Promise<SsoConnection | null> {
    const connection = await this.sso.connectionForEmail(email);
    if (connection && connection.organizationId !== organizationId) throw userNameTaken();
    return connection;
  }

  private async resources(
    organizationId: string,
    people: ProvisionedPerson[],
  ): Promise<Record<string, unknown>[]> {
    const groups = await this.groups.groupsOf(
      organizationId,
      people.map((person) => person.id),
    );
    return people.map((person) => userResource(person, groups.get(person.id) ?? []));
  }

  private uuidOf(id: string): string {
    const uuid = parsePublicId('user', id);
    if (uuid === null) throw notFound(id);
    return uuid;
  }
}

/** A person as a SCIM User. */
function userResource(
  person: ProvisionedPerson,
  groups: { id: string; displayName: string }[],
): Record<string, unknown> {
  const [givenName, ...rest] = person.name.split(' ');
  return {
    id: toPublicId('user', person.id),
    ...(person.externalId === null ? {} : { externalId: person.externalId }),
    userName: person.email,
    name: {
      formatted: person.name,
      ...(givenName ? { givenName } : {}),
      ...(rest.length > 0 ? { familyName: rest.join(' ') } : {}),
    },
    displayName: person.name,
    emails: [{ value: person.email, type: 'work', primary: true }],
    active: person.disabledAt === null,
    groups: groups.map((group) => ({
      value: toPublicId('scimGroup', group.id),
      display: group.displayName,
      type: 'direct',
    })),
    meta: { created: person.createdAt, lastModified: person.updatedAt },
  };
}

function stored(person: ProvisionedPerson): PersonFields {
  return {
    email: person.email,
    name: person.name,
    externalId: person.externalId,
    active: person.disabledAt === null,
  };
}

/**
 * What a SCIM User's attributes say of the fields kept here; an attribute
 * the User leaves out keeps `current`'s value (a new person's defaults).
 */
function fieldsOf(
  instance: Record<string, unknown>,
  current: ProvisionedPerson | null,
): PersonFields {
  const userName = instance.userName;
  if (typeof userName !== 'string' || !EMAIL.test(userName.trim())) {
    throw new ScimError(400, 'invalidValue', 'userName must be the person’s email address');
  }
  const email = userName.trim().toLowerCase();
  const name = nameOf(instance) ?? current?.name ?? email.split('@')[0]!;
  const externalId =
    typeof instance.externalId === 'string' ? instance.externalId : (current?.externalId ?? null);
  const active =
    typeof instance.active === 'boolean'
      ? instance.active
      : current
        ? current.disabledAt === null
        : true;
  return { email, name, externalId, active };
}

function nameOf(instance: Record<string, unknown>): string | null {
  const name = (instance.name ?? {}) as {
    formatted?: unknown;
    givenName?: unknown;
    familyName?: unknown;
  };
  const parts = [name.givenName, name.familyName].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  const candidates = [
    typeof name.formatted === 'string' ? name.formatted : null,
    parts.length > 0 ? parts.join(' ') : null,
    typeof instance.displayName === 'string' ? instance.displayName : null,
  ];
  const found = candidates.find((candidate) => candidate !== null && candidate.trim() !== '');
  return found === undefined || found === null ? null : found.trim().slice(0, MAX_NAME_LENGTH);
}

function userNameTaken() {
  return new ScimError(409, 'uniqueness', 'userName is already taken');
}
