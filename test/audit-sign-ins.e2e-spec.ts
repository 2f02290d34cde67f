import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { Sql } from '#database';
import { RedisService } from '#queue';
import {
  authorizationRequest,
  CookieJar,
  discover,
  type RegisteredClient,
} from './support/authorization.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * Sign-ins in the audit log (issue 41): a success, a wrong password and an
 * address locked out of an account are recorded under the person's
 * organisation with the request's id, address and user agent; an email no
 * person has is recorded nowhere.
 */

let stack: Stack;
let sql: Sql;
let as: oauth.AuthorizationServer;
let org: TestOrganization;
let app: RegisteredClient;
let member: TestMember;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  const client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
  as = await discover(stack.baseUrl);
  org = await createOrganization(stack, client);
  app = await memberClient(client, org);
  member = await addMember(stack, org, ['analyst']);
});
afterAll(async () => {
  // The failures counted here are per address; later test files start from zero.
  const redis = stack.api.get(RedisService).client;
  const keys = await redis.keys(`${stack.settings.redisPrefix}:attempts:*`);
  if (keys.length > 0) await redis.del(...keys);
  await stack?.close();
});

interface AuditRow {
  organization_id: string;
  mode: string;
  action: string;
  actor_type: string;
  actor_id: string;
  target_type: string;
  target_id: string;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  changes: unknown;
  details: Record<string, unknown> | null;
}

/** The audit events a request wrote, wherever they were filed. */
function eventsOf(requestId: string): Promise<AuditRow[]> {
  return sql.rows<AuditRow>(`SELECT * FROM audit_events WHERE request_id = $1`, [requestId]);
}

/** The sign-in form of a fresh authorization request by the organisation's application. */
async function signInAction(jar: CookieJar): Promise<string> {
  const { url } = await authorizationRequest(as, app);
  const redirect = await jar.fetch(url);
  const page = new URL(redirect.headers.get('location')!, stack.baseUrl);
  await jar.fetch(page);
  return `${page.href}/login`;
}

/** Posts the sign-in form from `address` (a trusted proxy's X-Forwarded-For), as this test's browser. */
async function signIn(
  jar: CookieJar,
  action: string,
  email: string,
  password: string,
  address: string,
) {
  const response = await jar.fetch(action, {
    method: 'POST',
    form: { email, password },
    headers: { 'x-forwarded-for': address, 'user-agent': 'audit-sign-ins/1.0' },
  });
  return { status: response.status, response, requestId: response.headers.get('x-request-id')! };
}

let addresses = 0;
/** An address of its own per test, so no test's failures lock out another's. */
function freshAddress(): string {
  addresses += 1;
  return `203.0.113.${addresses}`;
}

describe('the audit log of sign-ins', () => {
  const person = () => ({ type: 'person', id: toPublicId('user', member.userId) });

  it('records a password sign-in: the person, by themselves, with the request’s id, address and user agent', async () => {
    const jar = new CookieJar();
    const address = '198.51.100.41';
    const signedIn = await signIn(
      jar,
      await signInAction(jar),
      member.email,
      member.password,
      address,
    );
    expect(signedIn.status).toBe(303);
    const [event, ...others] = await eventsOf(signedIn.requestId);
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      organization_id: org.organizationId,
      mode: 'live',
      action: 'sign_in.succeeded',
      actor_type: person().type,
      actor_id: person().id,
      target_type: person().type,
      target_id: person().id,
      ip: address,
      user_agent: 'audit-sign-ins/1.0',
      request_id: signedIn.requestId,
      changes: null,
      details: { method: 'password' },
    });
  });

  it('records a wrong password for a person’s email, never what was typed', async () => {
    const jar = new CookieJar();
    const typed = `guess-${randomBytes(6).toString('hex')}`;
    const refused = await signIn(jar, await signInAction(jar), member.email, typed, freshAddress());
    expect(refused.status).toBe(401);
    const events = await eventsOf(refused.requestId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      organization_id: org.organizationId,
      action: 'sign_in.failed',
      actor_id: person().id,
      target_id: person().id,
      details: { method: 'password', reason: 'invalid_credentials' },
    });
    expect(JSON.stringify(events[0])).not.toContain(typed);
  });

  it('records nothing, anywhere, for an email no person has', async () => {
    const jar = new CookieJar();
    const nobody = `nobody-${randomBytes(4).toString('hex')}@example.test`;
    const refused = await signIn(jar, await signInAction(jar), nobody, 'a guess', freshAddress());
    expect(refused.status).toBe(401);
    expect(await eventsOf(refused.requestId)).toEqual([]);
  });

  it('records each attempt refused for too many failures, with how long to wait', async () => {
    const jar = new CookieJar();
    const action = await signInAction(jar);
    const address = freshAddress();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await signIn(jar, action, member.email, 'wrong', address)).status).toBe(401);
    }
    // Even the right password is refused now, from this address.
    const blocked = await signIn(jar, action, member.email, member.password, address);
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    const events = await eventsOf(blocked.requestId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      organization_id: org.organizationId,
      action: 'sign_in.locked',
      actor_id: person().id,
      target_id: person().id,
      ip: address,
      details: { method: 'password', retry_after_seconds: retryAfter },
    });
  });
});
