import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { parsePublicId, Scope } from '#common';
import { Sql } from '#database';
import type { RegisteredClient } from './support/authorization.js';
import { launchChromium } from './support/browser.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  addMember,
  MEMBER_SCOPES,
  memberClient,
  memberToken,
  type TestMember,
} from './support/people.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * What people reach (issue 18): an invitation link where a new member sets
 * their password and then signs in (authorization code + PKCE); analysts and
 * judges confined to their own work and profile, over HTTP and the live
 * WebSocket; a removed person's token refused at once.
 */

let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;
/** A code client whose people may also manage the organisation (admins use it). */
let codeClient: RegisteredClient;

const ADMIN_SCOPES = [...MEMBER_SCOPES, Scope.OrganizationsRead, Scope.OrganizationsWrite];

beforeAll(async () => {
  // A heartbeat each second: a connected person's roles are read again at each.
  stack = await startStack({ worker: false, env: { WS_HEARTBEAT_SECONDS: '1' } });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
  codeClient = await memberClient(client, org, ADMIN_SCOPES);
});

afterAll(async () => {
  await stack?.close();
});

function freshEmail(name: string): string {
  return `${name}.${randomBytes(4).toString('hex')}@example.test`;
}

/** Invites someone through the API: their analyst id, email and the path of their link. */
async function invite(roles: string[] = ['analyst']) {
  const email = freshEmail('invited');
  const response = await client.post('/v2/analysts', { token, json: { email, roles } });
  expect(response.status, response.text).toBe(201);
  return {
    analystId: response.body.analyst_id as string,
    email,
    path: new URL(response.body.invitation_url as string).pathname,
  };
}

/** The `action` of the page's form, as a browser would post to it. */
function formAction(html: string): string {
  const match = /<form method="post" action="([^"]+)"/.exec(html);
  expect(match, 'the page has a form').not.toBeNull();
  return match![1]!.replace(/&amp;/g, '&');
}

const PASSWORD = 'a sentence long enough to be a password';

describe('invitations', () => {
  it('shows a form to set a password, with the sign-in pages’ headers and no script', async () => {
    const { path, email } = await invite();
    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'",
    );
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    // The link's token reaches no other site; the page's own form sends its real Origin.
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.text).not.toContain('<script');
    expect(page.text).toContain(`value="${email}"`);
    expect(page.text).toContain('name="password"');
    expect(page.text).toContain('name="password_confirmation"');
    expect(page.text).toContain('autocomplete="new-password"');
    expect(formAction(page.text)).toBe(path);
  });

  it('round trip: the password is set once, then the person signs in with it', async () => {
    const { path, email, analystId } = await invite(['analyst']);
    const action = formAction((await client.get(path)).text);

    const short = await client.post(action, {
      form: { password: 'short', password_confirmation: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.text).toContain('role="alert"');
    expect(short.text).toContain('at least 12 characters');
    const different = await client.post(action, {
      form: { password: PASSWORD, password_confirmation: `${PASSWORD}!` },
    });
    expect(different.status).toBe(400);
    expect(different.text).toContain('not the same');

    const done = await client.post(action, {
      form: { password: PASSWORD, password_confirmation: PASSWORD },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(done.text).toContain('Your account is ready');
    expect(done.text).toContain('Sign in where');

    // Used: the link now says so, for reading and for posting.
    const used = await client.get(path);
    expect(used.status).toBe(404);
    expect(used.text).toContain('no longer works');
    const reused = await client.post(action, {
      form: { password: 'another long password', password_confirmation: 'another long password' },
    });
    expect(reused.status).toBe(404);

    const read = await client.get(`/v2/analysts/${analystId}`, { token });
    expect(read.body).toMatchObject({ status: 'active', invitation_expires_at: null });

    const personal = await memberToken(stack, codeClient, { email, password: PASSWORD });
    const profile = await client.get('/v1/user/profile', { token: personal });
    expect(profile.status, profile.text).toBe(200);
    expect(profile.body).toMatchObject({ analyst_id: analystId, roles: ['analyst'], email });
  });

  it('answers 404 pages for unknown and expired invitations', async () => {
    for (const path of [
      `/invitations/${randomBytes(32).toString('base64url')}`,
      '/invitations/not-a-token',
    ]) {
      const page = await client.get(path);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.text).toContain('no longer works');
    }
    const { path, analystId } = await invite();
    await stack.api
      .get(Sql)
      .rows(
        `UPDATE users SET invitation_expires_at = now() - interval '1 second' WHERE id = $1::uuid`,
        [parsePublicId('analyst', analystId)],
      );
    expect((await client.get(path)).status).toBe(404);
    const posted = await client.post(path, {
      form: { password: PASSWORD, password_confirmation: PASSWORD },
    });
    expect(posted.status).toBe(404);
  });

  it('refuses a post a browser marks as coming from another site', async () => {
    const { path } = await invite();
    const attempts: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://attacker.example' },
      // A sandboxed frame or a data: page, of any site.
      { origin: 'null' },
    ];
    for (const headers of attempts) {
      const response = await client.post(path, {
        form: { password: PASSWORD, password_confirmation: PASSWORD },
        headers,
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
    }
    // Nothing was set: the invitation still works.
    const form = await client.get(path);
    expect(form.status).toBe(200);
    // Its own form carries the page's real origin (an opaque one would be refused).
    expect(form.headers.get('referrer-policy')).toBe('same-origin');
    const own = await client.post(path, {
      form: { password: PASSWORD, password_confirmation: PASSWORD },
      headers: { origin: new URL(stack.baseUrl).origin },
    });
    expect(own.status).toBe(200);
  });

  it('a new invitation replaces the old link', async () => {
    const { path, analystId } = await invite();
    const again = await client.post(`/v2/analysts/${analystId}/invitation`, { token });
    expect(again.status, again.text).toBe(201);
    expect((await client.get(path)).status).toBe(404);
    expect((await client.get(new URL(again.body.invitation_url).pathname)).status).toBe(200);
  });

  describe('in a real browser', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('sets the password with the keyboard, under the page’s own CSP', async () => {
      const { path, email } = await invite();
      const page = await browser.newPage();
      await page.goto(`${stack.baseUrl}${path}`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Welcome');
      // The new password has focus on load; Tab moves to the repeat.
      expect(await page.locator(':focus').getAttribute('id')).toBe('password');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Tab');
      await page.keyboard.type('not the same one at all');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('not the same');
      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByLabel('Repeat the password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set password' }).click();
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent())
        .toBe('Your account is ready');
      await page.close();
      const personal = await memberToken(stack, codeClient, { email, password: PASSWORD });
      expect((await client.get('/v1/user/profile', { token: personal })).status).toBe(200);
    });
  });
});

describe('confinement', () => {
  let analyst: TestMember;
  let judge: TestMember;
  let admin: TestMember;
  let analystToken: string;
  let judgeToken: string;
  let adminToken: string;

  beforeAll(async () => {
    [analyst, judge, admin] = await Promise.all([
      addMember(stack, org, ['analyst'], 'Only Analyst'),
      addMember(stack, org, ['judge'], 'Only Judge'),
      addMember(stack, org, ['admin', 'analyst'], 'Admin Analyst'),
    ]);
    [analystToken, judgeToken, adminToken] = await Promise.all(
      [analyst, judge, admin].map((member) => memberToken(stack, codeClient, member)),
    );
  });

  it('an analyst or a judge reads their own profile and nothing of the organisation', async () => {
    for (const [member, personal] of [
      [analyst, analystToken],
      [judge, judgeToken],
    ] as const) {
      const profile = await client.get('/v1/user/profile', { token: personal });
      expect(profile.status, profile.text).toBe(200);
      expect(profile.body).toMatchObject({ analyst_id: member.analystId, roles: member.roles });
      for (const path of ['/v2/sessions', '/v1/sessions', '/v2/analysts', '/v2/webhooks']) {
        const refused = await client.get(path, { token: personal });
        expect(refused.status, `${path}: ${refused.text}`).toBe(403);
        expect(refused.body.error.code).toBe('FORBIDDEN');
      }
      const created = await client.post('/v2/analysts', {
        token: personal,
        json: { email: freshEmail('sneaky'), roles: ['admin'] },
      });
      expect(created.status).toBe(403);
    }
  });

  it('an admin person reaches the organisation and manages its people', async () => {
    expect((await client.get('/v2/sessions', { token: adminToken })).status).toBe(200);
    expect((await client.get('/v1/user/profile', { token: adminToken })).status).toBe(200);
    const listed = await client.get('/v2/analysts?role=analyst', { token: adminToken });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((a: { analyst_id: string }) => a.analyst_id)).toEqual(
      expect.arrayContaining([analyst.analystId, admin.analystId]),
    );
    const created = await client.post('/v2/analysts', {
      token: adminToken,
      json: { email: freshEmail('by-admin'), roles: ['judge'] },
    });
    expect(created.status, created.text).toBe(201);
  });

  it('a role taken away counts at once, for the same token', async () => {
    const member = await addMember(stack, org, ['admin', 'analyst']);
    const personal = await memberToken(stack, codeClient, member);
    expect((await client.get('/v2/sessions', { token: personal })).status).toBe(200);
    const demoted = await client.patch(`/v2/analysts/${member.analystId}`, {
      token,
      json: { roles: ['analyst'] },
    });
    expect(demoted.status, demoted.text).toBe(200);
    expect((await client.get('/v2/sessions', { token: personal })).status).toBe(403);
  });

  it("a removed person's token is refused at once (401)", async () => {
    const member = await addMember(stack, org, ['analyst']);
    const personal = await memberToken(stack, codeClient, member);
    expect((await client.get('/v1/user/profile', { token: personal })).status).toBe(200);
    expect((await client.delete(`/v2/analysts/${member.analystId}`, { token })).status).toBe(204);
    const refused = await client.get('/v1/user/profile', { token: personal });
    expect(refused.status).toBe(401);
    // And they cannot sign in again.
    await expect(memberToken(stack, codeClient, member)).rejects.toThrow();
  });

  describe('live updates (WebSocket)', () => {
    const wsUrl = () => `${stack.baseUrl.replace(/^http/, 'ws')}/v1/sessions/ws`;

    /** The HTTP answer to a refused upgrade, or 101 when it was accepted. */
    function handshake(personal: string): Promise<{ status: number; body: any }> {
      const socket = new WebSocket(wsUrl(), { headers: { authorization: `Bearer ${personal}` } });
      socket.on('error', () => undefined);
      return new Promise((resolve) => {
        socket.once('open', () => {
          socket.close();
          resolve({ status: 101, body: null });
        });
        socket.once('unexpected-response', (_request, response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            socket.terminate();
            resolve({ status: response.statusCode!, body: JSON.parse(text) });
          });
        });
      });
    }

    it('refuses analysts and judges (403), and lets admin people in', async () => {
      for (const personal of [analystToken, judgeToken]) {
        const refused = await handshake(personal);
        expect(refused.status).toBe(403);
        expect(refused.body.error.code).toBe('FORBIDDEN');
        expect(refused.body.error.message).toContain('cannot subscribe to work updates');
      }
      expect((await handshake(adminToken)).status).toBe(101);
    });

    it('closes a connected person who loses the admin role (4403) or is removed (4401)', async () => {
      for (const [change, code] of [
        [{ roles: ['analyst'] }, 4403],
        [{ disabled: true }, 4401],
      ] as const) {
        const member = await addMember(stack, org, ['admin']);
        const personal = await memberToken(stack, codeClient, member);
        const socket = new WebSocket(wsUrl(), {
          headers: { authorization: `Bearer ${personal}` },
        });
        const closed = new Promise<number>((resolve) => socket.once('close', resolve));
        await new Promise<void>((resolve, reject) => {
          socket.once('open', () => resolve());
          socket.once('error', reject);
        });
        const changed = await client.patch(`/v2/analysts/${member.analystId}`, {
          token,
          json: change,
        });
        expect(changed.status, changed.text).toBe(200);
        expect(await closed).toBe(code);
      }
    });
  });
});

describe('the work follows the people', () => {
  it('someone who stops being an analyst gives their open assignment to another', async () => {
    const team = await createOrganization(stack, client);
    const teamToken = await team.token();
    const teamClient = await memberClient(client, team);
    const [first, second] = await Promise.all([
      addMember(stack, team, ['analyst'], 'First Analyst'),
      addMember(stack, team, ['analyst'], 'Second Analyst'),
    ]);
    const [firstToken, secondToken] = await Promise.all(
      [first, second].map((member) => memberToken(stack, teamClient, member)),
    );
    const created = await client.post('/v2/sessions/create', {
      token: teamToken,
      json: {
        type: 'remote_viewing',
        target: 'The lighthouse at the end of the pier',
        engine: 'analyst',
        analyst_count: 1,
        analyst_ids: [first.analystId],
      },
    });
    expect(created.status, created.text).toBe(201);
    const mine = async (personal: string) =>
      (await client.get('/v2/assignments', { token: personal })).body.data as {
        status: string;
      }[];
    expect((await mine(firstToken)).map((a) => a.status)).toEqual(['assigned']);
    expect(await mine(secondToken)).toEqual([]);

    const changed = await client.patch(`/v2/analysts/${first.analystId}`, {
      token: teamToken,
      json: { roles: ['judge'] },
    });
    expect(changed.status, changed.text).toBe(200);
    expect((await mine(secondToken)).map((a) => a.status)).toEqual(['assigned']);
    expect((await mine(firstToken)).map((a) => a.status)).not.toContain('assigned');
  });
});
