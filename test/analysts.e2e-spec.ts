import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UsersService } from '#auth';
import { newId, parsePublicId, Scope, toPublicId } from '#common';
import { Sql } from '#database';
import { AUDIT_COLUMNS, auditOf as auditOfRequest, type AuditRow } from './support/audit.js';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * The people API (issue 18): members of the caller's organisation with
 * roles, created with a password or invited, listed, changed and removed by
 * the organisation's admins; the last active admin kept; another
 * organisation's people 404; an SSO sign-in of an invited email lands on
 * the same account.
 */

let stack: Stack;
let client: TestClient;
let sql: Sql;
let org: TestOrganization;
let token: string;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
  org = await createOrganization(stack, client);
  token = await org.token();
});

afterAll(async () => {
  await stack?.close();
});

/** An address no other test (nor an earlier run on the same database) has. */
function freshEmail(name = 'person'): string {
  return `${name}.${randomBytes(4).toString('hex')}@example.test`;
}

async function create(json: Record<string, unknown>, credential = token) {
  return client.post('/v2/analysts', { token: credential, json });
}

/** The audit events a response's request recorded, oldest first. */
function auditOf(response: ApiResponse): Promise<AuditRow[]> {
  return auditOfRequest(sql, response);
}

/** A member's person id (`usr_…`), what the audit log names them by. */
function personOf(analystId: string): string {
  return toPublicId('user', parsePublicId('analyst', analystId)!);
}

describe('POST /v2/analysts', () => {
  it('invites someone without a password: a one-time link, only its hash kept', async () => {
    const email = freshEmail('ada');
    const response = await create({ email: email.toUpperCase(), name: 'Ada Lovelace' });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      email,
      name: 'Ada Lovelace',
      roles: ['analyst'],
      identity_source: 'local',
      status: 'invited',
      last_sign_in_at: null,
    });
    expect(response.body.analyst_id).toMatch(/^analyst_/);
    const expiresIn = Date.parse(response.body.invitation_expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(6.9 * 24 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(7 * 24 * 3600_000);
    const url = new URL(response.body.invitation_url);
    expect(url.origin).toBe(new URL(stack.baseUrl).origin);
    const invitationToken = url.pathname.replace('/invitations/', '');
    expect(invitationToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await sql.rows<{ invitation_hash: string; password_hash: string | null }>(
      `SELECT invitation_hash, password_hash FROM users WHERE lower(email) = $1`,
      [email],
    );
    expect(row!.password_hash).toBeNull();
    expect(row!.invitation_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.invitation_hash).not.toContain(invitationToken);

    // Created and invited, by the caller, the person named by their usr_ id; no link kept.
    const person = { target_type: 'person', target_id: personOf(response.body.analyst_id) };
    const by = { actor_type: 'client', actor_id: org.clientId };
    const events = await auditOf(response);
    expect(events).toEqual([
      {
        organization_id: org.organizationId,
        mode: 'live',
        action: 'person.created',
        ...by,
        ...person,
        changes: {
          email: { before: null, after: email },
          name: { before: null, after: 'Ada Lovelace' },
          roles: { before: null, after: ['analyst'] },
        },
        details: { analyst_id: response.body.analyst_id },
      },
      expect.objectContaining({
        action: 'person.invited',
        ...by,
        ...person,
        details: {
          analyst_id: response.body.analyst_id,
          invitation_expires_at: response.body.invitation_expires_at,
        },
      }),
    ]);
    expect(JSON.stringify(events)).not.toContain(invitationToken);
  });

  it('creates a local account with a password: active at once, no invitation', async () => {
    const response = await create({
      email: freshEmail('grace'),
      name: 'Grace Hopper',
      roles: ['judge', 'analyst', 'judge'],
      password: 'correct horse battery staple',
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      roles: ['analyst', 'judge'],
      status: 'active',
      invitation_expires_at: null,
    });
    expect(response.body).not.toHaveProperty('invitation_url');
    expect(response.text).not.toContain('correct horse');
    const events = await auditOf(response);
    expect(events.map((event) => event.action)).toEqual(['person.created']);
    expect(JSON.stringify(events)).not.toContain('correct horse');
  });

  it('names the name after the email when none is given', async () => {
    const email = freshEmail('lin');
    const response = await create({ email });
    expect(response.status).toBe(201);
    expect(response.body.name).toBe(email.split('@')[0]);
  });

  it.each([
    [{}, 'email'],
    [{ email: 'not an email' }, 'email'],
    [{ email: 42 }, 'email'],
    [{ email: freshEmail(), roles: [] }, 'roles'],
    [{ email: freshEmail(), roles: ['boss'] }, 'roles'],
    [{ email: freshEmail(), roles: 'analyst' }, 'roles'],
    [{ email: freshEmail(), name: '   ' }, 'name'],
    [{ email: freshEmail(), password: 'too short' }, 'password'],
    [{ email: freshEmail(), password: ' '.repeat(20) }, 'password'],
    [{ email: freshEmail(), status: 'active' }, 'status'],
  ])('refuses %j, naming %s', async (json, field) => {
    const response = await create(json);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.details.field).toBe(field);
  });

  it('refuses an email already in the organisation (409 naming the member to change)', async () => {
    const email = freshEmail('twice');
    const first = await create({ email });
    const again = await create({ email: email.toUpperCase(), password: 'a long enough password' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect(again.body.error.details.field).toBe('email');
    expect(again.body.error.details.issue).toContain(first.body.analyst_id);
    expect(again.body.error.details.issue).toContain('PATCH');
  });

  it("refuses an email of another organisation's account (409), revealing nothing of it", async () => {
    const other = await createOrganization(stack, client);
    const email = freshEmail('elsewhere');
    expect((await create({ email }, await other.token())).status).toBe(201);
    const response = await create({ email });
    expect(response.status).toBe(409);
    expect(response.body.error.details.field).toBe('email');
    expect(response.text).not.toMatch(/analyst_/);
  });

  it('is for live-mode credentials: a test-mode key reads people but does not change them', async () => {
    const testKey = await org.apiKey(undefined, 'test');
    const refused = await client.post('/v2/analysts', {
      apiKey: testKey,
      json: { email: freshEmail() },
    });
    expect(refused.status).toBe(403);
    const listed = await client.get('/v2/analysts', { apiKey: testKey });
    expect(listed.status).toBe(200);
  });

  it('needs organizations:write to change and organizations:read to read', async () => {
    const reader = await org.token([Scope.OrganizationsRead]);
    const refused = await create({ email: freshEmail() }, reader);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.required_scopes).toEqual(['organizations:write']);
    expect((await client.get('/v2/analysts', { token: reader })).status).toBe(200);
    const none = await org.token([Scope.SessionsRead]);
    expect((await client.get('/v2/analysts', { token: none })).status).toBe(403);
  });

  it('works with an API key too', async () => {
    const key = await org.apiKey([Scope.OrganizationsWrite, Scope.OrganizationsRead]);
    const response = await client.post('/v2/analysts', {
      apiKey: key,
      json: { email: freshEmail(), roles: ['judge'] },
    });
    expect(response.status, response.text).toBe(201);
  });
});

describe('GET /v2/analysts and /v2/analysts/{analyst_id}', () => {
  let team: TestOrganization;
  let teamToken: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    team = await createOrganization(stack, client);
    teamToken = await team.token();
    const make = async (key: string, json: Record<string, unknown>) => {
      const response = await create({ email: freshEmail(key), ...json }, teamToken);
      expect(response.status, response.text).toBe(201);
      ids[key] = response.body.analyst_id;
    };
    await make('invited', { roles: ['analyst'] });
    await make('judge', { roles: ['judge'], password: 'a long enough password' });
    await make('both', { roles: ['analyst', 'judge'], password: 'a long enough password' });
    await make('gone', { roles: ['analyst'], password: 'a long enough password' });
    expect((await client.delete(`/v2/analysts/${ids.gone}`, { token: teamToken })).status).toBe(
      204,
    );
  });

  async function listed(query: string): Promise<string[]> {
    const response = await client.get(`/v2/analysts${query}`, { token: teamToken });
    expect(response.status, response.text).toBe(200);
    return response.body.data.map((item: { analyst_id: string }) => item.analyst_id);
  }

  it('lists every member, newest first, and filters by role and status', async () => {
    expect(await listed('')).toEqual([ids.gone, ids.both, ids.judge, ids.invited]);
    expect(await listed('?role=judge')).toEqual([ids.both, ids.judge]);
    expect(await listed('?role=analyst&status=active')).toEqual([ids.both]);
    expect(await listed('?status=invited')).toEqual([ids.invited]);
    expect(await listed('?status=disabled')).toEqual([ids.gone]);
    expect(await listed('?role=admin')).toEqual([]);
  });

  it('pages with a cursor', async () => {
    const first = await client.get('/v2/analysts?per_page=3', { token: teamToken });
    expect(first.body.pagination).toMatchObject({ total: 4, has_next: true, page: 1 });
    const second = await client.get(
      `/v2/analysts?per_page=3&cursor=${first.body.pagination.next_cursor}`,
      { token: teamToken },
    );
    expect(second.body.data.map((a: { analyst_id: string }) => a.analyst_id)).toEqual([
      ids.invited,
    ]);
    expect(second.body.pagination).toMatchObject({ page: 2, has_next: false, has_prev: true });
  });

  it('refuses unknown filters, naming them', async () => {
    for (const [query, field] of [
      ['?role=boss', 'role'],
      ['?status=asleep', 'status'],
    ]) {
      const response = await client.get(`/v2/analysts${query}`, { token: teamToken });
      expect(response.status).toBe(400);
      expect(response.body.error.details.field).toBe(field);
    }
  });

  it('reads one member with an empty track record, overall and by kind', async () => {
    const response = await client.get(`/v2/analysts/${ids.both}`, { token: teamToken });
    expect(response.status, response.text).toBe(200);
    const empty = {
      trials: 0,
      hits: 0,
      hit_rate: { value: 0, successes: 0, n: 0, ci_low: 0, ci_high: 1, baseline: 0.2, p_value: 1 },
      saic_accuracy: null,
      saic_reliability: null,
      evidence: 'prior',
    };
    expect(response.body.track_record).toMatchObject(empty);
    expect(response.body.track_record.summary).toContain('No judged trials yet');
    for (const kind of ['session', 'analysis', 'dowsing']) {
      expect(response.body.track_record.by_kind[kind]).toMatchObject(empty);
    }
  });

  it("answers 404 for another organisation's member, a malformed id, or another kind of id", async () => {
    for (const id of [
      ids.both,
      'analyst_nope',
      toPublicId('user', (await addMember(stack, team, ['analyst'])).userId),
    ]) {
      for (const [method, json] of [
        ['GET', undefined],
        ['PATCH', { name: 'Taken over' }],
        ['DELETE', undefined],
        ['POST', undefined],
      ] as const) {
        const path = method === 'POST' ? `/v2/analysts/${id}/invitation` : `/v2/analysts/${id}`;
        const response = await client.request(method, path, { token, json });
        expect(response.status, `${method} ${id}`).toBe(404);
        expect(response.body.error.code).toBe('NOT_FOUND');
      }
    }
    const ours = await client.get('/v2/analysts', { token });
    expect(ours.text).not.toContain(ids.both);
    const [row] = await sql.rows<{ name: string; disabled_at: Date | null }>(
      `SELECT name, disabled_at FROM users WHERE id = $1`,
      [idOf(ids.both!)],
    );
    expect(row).toMatchObject({ disabled_at: null });
    expect(row!.name).not.toBe('Taken over');
  });
});

function idOf(analystId: string): string {
  return parsePublicId('analyst', analystId)!;
}

describe('PATCH and DELETE /v2/analysts/{analyst_id}', () => {
  it('changes the name and roles; absent fields stay', async () => {
    const created = await create({ email: freshEmail(), name: 'Before', roles: ['analyst'] });
    const path = `/v2/analysts/${created.body.analyst_id}`;
    const renamed = await client.patch(path, { token, json: { name: 'After' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'After', roles: ['analyst'], status: 'invited' });
    const judged = await client.patch(path, { token, json: { roles: ['judge', 'analyst'] } });
    expect(judged.body).toMatchObject({ name: 'After', roles: ['analyst', 'judge'] });
    // Each on record with what it changed, before and after.
    const person = personOf(created.body.analyst_id);
    expect(await auditOf(renamed)).toEqual([
      expect.objectContaining({
        action: 'person.updated',
        actor_id: org.clientId,
        target_id: person,
        changes: { name: { before: 'Before', after: 'After' } },
      }),
    ]);
    expect(await auditOf(judged)).toEqual([
      expect.objectContaining({
        action: 'person.updated',
        target_id: person,
        changes: { roles: { before: ['analyst'], after: ['analyst', 'judge'] } },
      }),
    ]);
    for (const [json, field] of [
      [{ roles: [] }, 'roles'],
      [{ disabled: 'yes' }, 'disabled'],
      [{ name: '' }, 'name'],
      [{ email: 'new@example.test' }, 'email'],
    ] as const) {
      const refused = await client.patch(path, { token, json });
      expect(refused.status, JSON.stringify(json)).toBe(400);
      expect(refused.body.error.details.field).toBe(field);
    }
  });

  it('removes a member by disabling them: history kept, invitation cleared, GET shows them', async () => {
    const created = await create({ email: freshEmail() });
    const id = created.body.analyst_id;
    const removed = await client.delete(`/v2/analysts/${id}`, { token });
    expect(removed.status).toBe(204);
    const removedAgain = await client.delete(`/v2/analysts/${id}`, { token });
    expect(removedAgain.status).toBe(204);
    const person = { target_type: 'person', target_id: personOf(id) };
    expect(await auditOf(removed)).toEqual([
      expect.objectContaining({
        action: 'person.removed',
        actor_type: 'client',
        actor_id: org.clientId,
        ...person,
        changes: { disabled: { before: false, after: true } },
        details: { analyst_id: id },
      }),
    ]);
    // Removing again changes nothing, but was asked for: on record, without changes.
    expect(await auditOf(removedAgain)).toEqual([
      expect.objectContaining({ action: 'person.removed', ...person, changes: null }),
    ]);
    const read = await client.get(`/v2/analysts/${id}`, { token });
    expect(read.body).toMatchObject({ status: 'disabled', invitation_expires_at: null });
    const [row] = await sql.rows<{ invitation_hash: string | null }>(
      `SELECT invitation_hash FROM users WHERE id = $1`,
      [idOf(id)],
    );
    expect(row!.invitation_hash).toBeNull();
    const url = new URL(created.body.invitation_url);
    expect((await fetch(`${stack.baseUrl}${url.pathname}`)).status).toBe(404);
    // Enabled again, they are invited once more (no password yet), and can be sent a new link.
    const enabled = await client.patch(`/v2/analysts/${id}`, { token, json: { disabled: false } });
    expect(enabled.body.status).toBe('invited');
    expect(await auditOf(enabled)).toEqual([
      expect.objectContaining({
        action: 'person.enabled',
        ...person,
        changes: { disabled: { before: true, after: false } },
      }),
    ]);
    const again = await client.post(`/v2/analysts/${id}/invitation`, { token });
    expect(again.status, again.text).toBe(201);
    expect(again.body.invitation_url).not.toBe(created.body.invitation_url);
    const [reinvited, ...more] = await auditOf(again);
    expect(more).toEqual([]);
    expect(reinvited).toMatchObject({
      action: 'person.invited',
      actor_id: org.clientId,
      ...person,
      details: { analyst_id: id, invitation_expires_at: again.body.invitation_expires_at },
    });
    expect(JSON.stringify(reinvited)).not.toContain(new URL(again.body.invitation_url).pathname);
  });

  it('records an accepted invitation as the person’s own change, never the password', async () => {
    const created = await create({ email: freshEmail('accepting') });
    const password = 'a password of their own';
    const accepted = await client.post(new URL(created.body.invitation_url).pathname, {
      form: { password, password_confirmation: password },
    });
    expect(accepted.status, accepted.text).toBe(200);
    const person = personOf(created.body.analyst_id);
    const events = await auditOf(accepted);
    expect(events).toEqual([
      {
        organization_id: org.organizationId,
        mode: 'live',
        action: 'person.updated',
        actor_type: 'person',
        actor_id: person,
        target_type: 'person',
        target_id: person,
        changes: { status: { before: 'invited', after: 'active' } },
        details: { invitation: 'accepted', analyst_id: created.body.analyst_id },
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(password);
  });

  it('invites again only people still invited (409 naming status)', async () => {
    const created = await create({ email: freshEmail(), password: 'a long enough password' });
    const response = await client.post(`/v2/analysts/${created.body.analyst_id}/invitation`, {
      token,
    });
    expect(response.status).toBe(409);
    expect(response.body.error.details.field).toBe('status');
  });

  it('never leaves the organisation without an active admin', async () => {
    const team = await createOrganization(stack, client);
    const teamToken = await team.token();
    const only = await addMember(stack, team, ['admin', 'analyst']);
    const path = `/v2/analysts/${only.analystId}`;
    const demote = await client.patch(path, { token: teamToken, json: { roles: ['analyst'] } });
    expect(demote.status).toBe(409);
    expect(demote.body.error.details.field).toBe('roles');
    const disable = await client.patch(path, { token: teamToken, json: { disabled: true } });
    expect(disable.status).toBe(409);
    expect(disable.body.error.details.field).toBe('disabled');
    const remove = await client.delete(path, { token: teamToken });
    expect(remove.status).toBe(409);
    expect(remove.body.error.details.field).toBe('roles');
    // An invited admin cannot run the organisation yet: it does not count.
    const invited = await create({ email: freshEmail(), roles: ['admin'] }, teamToken);
    expect(invited.body.status).toBe('invited');
    expect((await client.delete(path, { token: teamToken })).status).toBe(409);
    // A second active admin: now either may go.
    await addMember(stack, team, ['admin']);
    const demoted = await client.patch(path, { token: teamToken, json: { roles: ['analyst'] } });
    expect(demoted.status, demoted.text).toBe(200);
    expect(demoted.body.roles).toEqual(['analyst']);
    // What was refused changed nothing, and is not on record.
    for (const refused of [demote, disable, remove]) expect(await auditOf(refused)).toEqual([]);
    expect(await auditOf(demoted)).toEqual([
      expect.objectContaining({
        action: 'person.updated',
        changes: { roles: { before: ['admin', 'analyst'], after: ['analyst'] } },
      }),
    ]);
  });

  it('keeps the last admin when two demote each other at once', async () => {
    const team = await createOrganization(stack, client);
    const teamToken = await team.token();
    const [a, b] = await Promise.all([
      addMember(stack, team, ['admin']),
      addMember(stack, team, ['admin']),
    ]);
    const answers = await Promise.all(
      [a, b].map((member) =>
        client.patch(`/v2/analysts/${member.analystId}`, {
          token: teamToken,
          json: { roles: ['judge'] },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const admins = await client.get('/v2/analysts?role=admin&status=active', {
      token: teamToken,
    });
    expect(admins.body.data).toHaveLength(1);
  });
});

describe('SSO users are matched by email', () => {
  it('an SSO sign-in of an invited email lands on the same account, now active', async () => {
    const email = freshEmail('federated');
    const created = await create({ email, roles: ['analyst'] });
    const result = await stack.api.get(UsersService).signInFederated({
      organizationId: org.organizationId,
      source: 'ldap',
      connectionId: '00000000-0000-7000-8000-000000000000',
      email: email.toUpperCase(),
      name: 'From the directory',
      groups: [],
      scopes: ['remote-viewing:read'],
      provision: false,
      roles: ['admin'],
    });
    expect('user' in result && result.user.id).toBe(idOf(created.body.analyst_id));
    const read = await client.get(`/v2/analysts/${created.body.analyst_id}`, { token });
    expect(read.body).toMatchObject({
      status: 'active',
      identity_source: 'ldap',
      roles: ['analyst'],
      name: 'From the directory',
    });
    expect(read.body.last_sign_in_at).not.toBeNull();
    // Signed in through SSO, they are no longer invited: the link no longer sets a password.
    const link = new URL(created.body.invitation_url as string);
    expect((await fetch(`${stack.baseUrl}${link.pathname}`)).status).toBe(404);
    // The connection changed the account: on record, the connection its actor.
    const [updated, ...more] = await sql.rows<AuditRow>(
      `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE target_id = $1 AND action = 'person.updated'`,
      [personOf(created.body.analyst_id)],
    );
    expect(more).toEqual([]);
    expect(updated).toMatchObject({
      organization_id: org.organizationId,
      mode: 'live',
      actor_type: 'system',
      actor_id: toPublicId('ssoConnection', '00000000-0000-7000-8000-000000000000'),
      target_type: 'person',
      changes: {
        name: { before: email.split('@')[0], after: 'From the directory' },
        identity_source: { before: 'local', after: 'ldap' },
        scopes: { after: ['remote-viewing:read'] },
      },
      details: { source: 'ldap', analyst_id: created.body.analyst_id },
    });
  });

  it('a first sign-in provisions the account (JIT), recorded as created by the connection', async () => {
    const email = freshEmail('provisioned');
    const connectionId = '00000000-0000-7000-8000-000000000001';
    const signIn = () =>
      stack.api.get(UsersService).signInFederated({
        organizationId: org.organizationId,
        source: 'saml',
        connectionId,
        email,
        name: 'Provisioned Person',
        groups: ['staff'],
        scopes: ['remote-viewing:read'],
        provision: true,
        roles: ['judge'],
      });
    const result = await signIn();
    if (!('user' in result)) throw new Error(`refused: ${result.refused}`);
    const person = toPublicId('user', result.user.id);
    const events = () =>
      sql.rows<AuditRow>(
        `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE target_id = $1 ORDER BY created_at, id`,
        [person],
      );
    expect(await events()).toEqual([
      {
        organization_id: org.organizationId,
        mode: 'live',
        action: 'person.created',
        actor_type: 'system',
        actor_id: toPublicId('ssoConnection', connectionId),
        target_type: 'person',
        target_id: person,
        changes: {
          email: { before: null, after: email },
          name: { before: null, after: 'Provisioned Person' },
          roles: { before: null, after: ['judge'] },
          identity_source: { before: null, after: 'saml' },
          groups: { before: null, after: ['staff'] },
          scopes: { before: null, after: ['remote-viewing:read'] },
        },
        details: { source: 'saml', analyst_id: toPublicId('analyst', result.user.id) },
      },
    ]);
    // Signing in again with the same groups changes nothing worth a record.
    await signIn();
    expect(await events()).toHaveLength(1);
  });
});

describe('removing an analyst who holds open work', () => {
  /** Records the statements of every transaction the API runs until `stop()`. */
  function recordTransactions() {
    const transactions: string[][] = [];
    const original = sql.transaction.bind(sql);
    const spy = vi.spyOn(sql, 'transaction').mockImplementation((work) =>
      original(async (tx) => {
        const statements: string[] = [];
        transactions.push(statements);
        const query = tx.query;
        (tx as { query: unknown }).query = (text: unknown, ...rest: unknown[]) => {
          statements.push(String(text));
          return (query as (...args: unknown[]) => unknown).call(tx, text, ...rest);
        };
        try {
          return await work(tx);
        } finally {
          delete (tx as { query?: unknown }).query;
        }
      }),
    );
    return { transactions, stop: () => spy.mockRestore() };
  }

  async function task(teamToken: string, target: string, analystIds: string[]) {
    const created = await client.post('/v2/sessions/create', {
      token: teamToken,
      json: {
        type: 'remote_viewing',
        target,
        engine: 'analyst',
        analyst_count: analystIds.length,
        analyst_ids: analystIds,
        duration_minutes: 180,
      },
    });
    expect(created.status, created.text).toBe(201);
    return parsePublicId('session', created.body.session_id as string)!;
  }

  async function assignmentsOfWork(workId: string) {
    return sql.rows<{
      id: string;
      user_id: string;
      status: string;
      decline_reason: string | null;
      deadline: Date;
    }>(
      `SELECT a.id, a.user_id, a.status, a.decline_reason, a.deadline
         FROM assignments a JOIN work_taskings t ON t.id = a.tasking_id
        WHERE t.work_id = $1 ORDER BY a.created_at, a.id`,
      [workId],
    );
  }

  it('hands on all 30 open assignments in one transaction: declined, replaced, announced in order', async () => {
    const team = await createOrganization(stack, client);
    const teamToken = await team.token();
    const [leaving, partner, third, fourth] = await Promise.all(
      ['Leaving', 'Partner', 'Third', 'Fourth'].map((name) =>
        addMember(stack, team, ['analyst'], `${name} Analyst`),
      ),
    );
    // The first 10 are shared with `partner`, who therefore cannot take those places.
    const works: string[] = [];
    for (let i = 0; i < 30; i++) {
      const ids = i < 10 ? [leaving!.analystId, partner!.analystId] : [leaving!.analystId];
      works.push(await task(teamToken, `Target ${i}`, ids));
    }
    // Work already submitted is not given back.
    const submittedWork = await task(teamToken, 'Submitted target', [leaving!.analystId]);
    await sql.rows(
      `UPDATE assignments SET status = 'submitted', submitted_at = now() WHERE user_id = $1
          AND tasking_id = (SELECT id FROM work_taskings WHERE work_id = $2)`,
      [leaving!.userId, submittedWork],
    );
    const before = new Map(
      await Promise.all(works.map(async (w) => [w, await assignmentsOfWork(w)] as const)),
    );

    const requestId = newId('request');
    const recorder = recordTransactions();
    let removed;
    try {
      removed = await client.patch(`/v2/analysts/${leaving!.analystId}`, {
        token: teamToken,
        json: { disabled: true },
        headers: { 'x-request-id': requestId },
      });
    } finally {
      recorder.stop();
    }
    expect(removed.status, removed.text).toBe(200);
    // One transaction hands every assignment on, in a fixed handful of statements.
    const releases = recorder.transactions.filter((statements) =>
      statements.some((text) => /UPDATE assignments/.test(text)),
    );
    expect(releases).toHaveLength(1);
    expect(releases[0]!.length).toBeLessThanOrEqual(8);

    const others = new Set([partner!.userId, third!.userId, fourth!.userId]);
    for (const [i, work] of works.entries()) {
      const rows = await assignmentsOfWork(work);
      const mine = rows.find((row) => row.user_id === leaving!.userId)!;
      expect(mine).toMatchObject({ status: 'declined', decline_reason: 'released' });
      const assigned = rows.filter((row) => row.status === 'assigned');
      expect(assigned, `work ${i}`).toHaveLength(i < 10 ? 2 : 1);
      for (const row of assigned) {
        expect(others.has(row.user_id)).toBe(true);
        expect(row.deadline).toEqual(mine.deadline);
      }
      expect(new Set(rows.map((row) => row.user_id)).size).toBe(rows.length);
      expect(rows).toHaveLength(before.get(work)!.length + 1);
    }
    expect((await assignmentsOfWork(submittedWork))[0]!.status).toBe('submitted');
    // Least loaded first: partner started with 10, the others with none; 30 places later all are level.
    const loads = await sql.rows<{ user_id: string; open: number }>(
      `SELECT user_id, count(*)::int AS open FROM assignments
        WHERE user_id = ANY($1) AND status IN ('assigned', 'submitted') GROUP BY user_id`,
      [[...others]],
    );
    const counts = loads.map((row) => row.open);
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(40);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);

    // Each place: its assignment.declined, then its replacement's assignment.created.
    const events = await sql.rows<{ type: string; data: Record<string, unknown> }>(
      `SELECT type, data FROM events WHERE organization_id = $1 AND request_id = $2
          AND type LIKE 'assignment.%' ORDER BY created_at, id`,
      [team.organizationId, requestId],
    );
    expect(events).toHaveLength(60);
    for (let i = 0; i < 60; i += 2) {
      const [declined, created] = [events[i]!, events[i + 1]!];
      expect(declined).toMatchObject({
        type: 'assignment.declined',
        data: { analyst_id: leaving!.analystId, status: 'declined', sequence: 2 },
      });
      expect(created).toMatchObject({
        type: 'assignment.created',
        data: { status: 'assigned', sequence: 1, work_id: declined.data['work_id'] },
      });
      expect(created.data['analyst_id']).not.toBe(leaving!.analystId);
      expect(created.data['deadline']).toBe(declined.data['deadline']);
    }
    expect(new Set(events.map((event) => event.data['work_id'])).size).toBe(30);
    expect(events[0]!.data['work_id']).toBe(toPublicId('session', works[0]!));
  });

  it('brings the deadline to now where nobody is free and nobody left has yet to submit', async () => {
    const team = await createOrganization(stack, client);
    const teamToken = await team.token();
    const [leaving, other] = await Promise.all([
      addMember(stack, team, ['analyst']),
      addMember(stack, team, ['analyst']),
    ]);
    const work = await task(teamToken, 'A quiet harbour', [leaving.analystId, other.analystId]);
    await sql.rows(
      `UPDATE assignments SET status = 'submitted', submitted_at = now() WHERE user_id = $1`,
      [other.userId],
    );
    const removed = await client.delete(`/v2/analysts/${leaving.analystId}`, {
      token: teamToken,
    });
    expect(removed.status, removed.text).toBe(204);
    const rows = await assignmentsOfWork(work);
    expect(rows.map((row) => [row.user_id, row.status])).toEqual([
      [leaving.userId, 'declined'],
      [other.userId, 'submitted'],
    ]);
    const [tasking] = await sql.rows<{ deadline: Date; now: Date }>(
      `SELECT deadline, now() AS now FROM work_taskings WHERE work_id = $1`,
      [work],
    );
    expect(tasking!.deadline.getTime()).toBeLessThanOrEqual(tasking!.now.getTime());
  });
});
