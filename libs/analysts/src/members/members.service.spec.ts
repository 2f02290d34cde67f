import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { MemberRecord, UsersRepository } from '#auth';
import { newUuid, toPublicId, type Principal } from '#common';
import type { AppSettings } from '#config';
import type { Sql, Transaction } from '#database';
import { AuditLog } from '#events';
import type { OrganizationsRepository } from '#organizations';
import type { MemberConsequences } from './member-consequences.js';
import { MembersService } from './members.service.js';

/**
 * What the people API leaves in the audit log (MembersService, with the
 * accounts, the organisation's lock and the consequences for the work
 * faked): each change of a person is an event of their `usr_…` id, by the
 * caller, written in the transaction of the change.
 */

const tx = { open: true } as unknown as Transaction;
const organizationId = newUuid();
const principal: Principal = {
  organizationId,
  mode: 'live',
  credential: 'access_token',
  subject: 'admin-client',
  scopes: ['organizations:write'],
};

function member(overrides: Partial<MemberRecord> = {}): MemberRecord {
  return {
    id: newUuid(),
    organizationId,
    email: 'ada@example.com',
    name: 'Ada',
    roles: ['analyst'],
    identitySource: 'local',
    scimManaged: false,
    hasPassword: true,
    invitationExpiresAt: null,
    disabledAt: null,
    createdAt: new Date(),
    lastSignInAt: null,
    ...overrides,
  };
}

let audited: MockInstance<typeof AuditLog.record>;
beforeEach(() => {
  audited = vi.spyOn(AuditLog, 'record').mockResolvedValue(undefined);
});
afterEach(() => vi.restoreAllMocks());

function service(stored: MemberRecord | null) {
  let current = stored;
  const users = {
    findByEmailAcrossTenants: vi.fn(() => Promise.resolve(null)),
    insertMember: vi.fn((_tx: Transaction, _org: string, inserted: { id: string }) => {
      current = member({ id: inserted.id, hasPassword: false });
      return Promise.resolve();
    }),
    findMember: vi.fn(() => Promise.resolve(current)),
    lockMember: vi.fn(() => Promise.resolve(current)),
    countOtherActiveAdmins: vi.fn(() => Promise.resolve(1)),
    updateMember: vi.fn(() => Promise.resolve()),
    reinviteMember: vi.fn(() => Promise.resolve()),
  };
  const sql = { transaction: (work: (tx: Transaction) => Promise<unknown>) => work(tx) };
  const members = new MembersService(
    sql as unknown as Sql,
    users as unknown as UsersRepository,
    { lock: vi.fn(() => Promise.resolve()) } as unknown as OrganizationsRepository,
    { publicUrl: 'https://api.example.com' } as AppSettings,
    { apply: vi.fn(() => Promise.resolve()) } as unknown as MemberConsequences,
  );
  return { members, users };
}

/** The events recorded, as [action, entry] pairs. */
function recorded() {
  return audited.mock.calls.map(([on, tenant, entry]) => {
    expect(on).toBe(tx);
    expect(tenant).toBe(principal);
    return entry;
  });
}

describe('MembersService audit events', () => {
  it('records an invited person as created (email, name, roles) and invited', async () => {
    const { members } = service(null);
    const { analyst } = await members.create(
      principal,
      { email: 'Ada@Example.com', name: 'Ada', roles: ['judge'] },
      null,
    );
    const target = { type: 'person', id: toPublicId('user', analyst.id) };
    const analystId = toPublicId('analyst', analyst.id);
    const [created, invited, ...rest] = recorded();
    expect(rest).toEqual([]);
    expect(created).toEqual({
      action: 'person.created',
      actor: principal,
      target,
      changes: {
        email: { before: null, after: 'ada@example.com' },
        name: { before: null, after: 'Ada' },
        roles: { before: null, after: ['judge'] },
      },
      details: { analyst_id: analystId },
    });
    expect(invited).toMatchObject({
      action: 'person.invited',
      target,
      details: { analyst_id: analystId, invitation_expires_at: expect.any(String) },
    });
  });

  it('records someone created with a password as created only, never the password', async () => {
    const { members } = service(null);
    await members.create(
      principal,
      { email: 'grace@example.com', password: 'correct horse battery' },
      null,
    );
    const entries = recorded();
    expect(entries.map((entry) => entry.action)).toEqual(['person.created']);
    expect(JSON.stringify(entries)).not.toContain('correct horse');
  });

  it('records a role change with its before and after', async () => {
    const stored = member();
    const { members } = service(stored);
    await members.update(
      principal,
      toPublicId('analyst', stored.id),
      { roles: ['analyst', 'judge'] },
      null,
    );
    expect(recorded()).toEqual([
      {
        action: 'person.updated',
        actor: principal,
        target: { type: 'person', id: toPublicId('user', stored.id) },
        changes: { roles: { before: ['analyst'], after: ['analyst', 'judge'] } },
        details: { analyst_id: toPublicId('analyst', stored.id) },
      },
    ]);
  });

  it('records disabling and enabling as such, and a PATCH that changes nothing as an update', async () => {
    const stored = member();
    const { members } = service(stored);
    const id = toPublicId('analyst', stored.id);
    await members.update(principal, id, { disabled: true }, null);
    expect(recorded()).toEqual([
      expect.objectContaining({
        action: 'person.disabled',
        changes: { disabled: { before: false, after: true } },
      }),
    ]);

    audited.mockClear();
    const { members: again } = service(member({ id: stored.id, disabledAt: new Date() }));
    await again.update(principal, id, { disabled: false, name: 'Ada L.' }, null);
    expect(recorded().map((entry) => [entry.action, entry.changes])).toEqual([
      ['person.updated', { name: { before: 'Ada', after: 'Ada L.' } }],
      ['person.enabled', { disabled: { before: true, after: false } }],
    ]);

    audited.mockClear();
    await members.update(principal, id, { name: 'Ada' }, null);
    expect(recorded()).toEqual([
      expect.objectContaining({ action: 'person.updated', changes: null }),
    ]);
  });

  it('records a removal, and a re-sent invitation', async () => {
    const stored = member();
    const { members } = service(stored);
    await members.disable(principal, toPublicId('analyst', stored.id), null);
    expect(recorded()).toEqual([
      expect.objectContaining({
        action: 'person.removed',
        target: { type: 'person', id: toPublicId('user', stored.id) },
        changes: { disabled: { before: false, after: true } },
      }),
    ]);

    audited.mockClear();
    const invitedMember = member({ hasPassword: false });
    const { members: invitations } = service(invitedMember);
    await invitations.reinvite(principal, toPublicId('analyst', invitedMember.id));
    expect(recorded()).toEqual([
      expect.objectContaining({
        action: 'person.invited',
        details: expect.objectContaining({ again: true }),
      }),
    ]);
  });
});
