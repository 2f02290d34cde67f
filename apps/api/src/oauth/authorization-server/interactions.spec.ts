import type { Response } from 'express';
import { describe, expect, it, vi } from 'vitest';
import type { UserEntity } from '#auth';
import { toPublicId } from '#common';
import type { SsoConnection } from '#sso';
import { Interactions, recordSamlRefusal, type OpenInteraction } from './interactions.js';

const ORGANIZATION = '0190a0a0-0000-7000-8000-000000000001';
const USER = {
  id: '0190a0a0-0000-7000-8000-000000000002',
  organizationId: ORGANIZATION,
} as UserEntity;
const PERSON = toPublicId('user', USER.id);

/** An audit row as AuditLog.record writes it: the INSERT's parameters by column. */
function rows(query: ReturnType<typeof vi.fn>) {
  return query.mock.calls.map((call: unknown[]) => {
    const params = call[1] as unknown[];
    return {
      organizationId: params[1],
      mode: params[2],
      action: params[3],
      actor: { type: params[4], id: params[5] },
      target: { type: params[6], id: params[7] },
      details: JSON.parse(params[12] as string) as unknown,
    };
  });
}

function interactions(options: { known?: boolean; wait?: { seconds: number } | null } = {}) {
  const query = vi.fn(async () => []);
  const limiter = {
    wait: vi.fn(async () =>
      options.wait === undefined ? null : options.wait && { ...options.wait, reason: 'locked' },
    ),
    recordFailure: vi.fn(async () => {}),
  };
  const users = { findByEmail: vi.fn(async () => (options.known === false ? null : USER)) };
  const subject = new Interactions(
    {} as never,
    users as never,
    limiter as never,
    {} as never,
    {} as never,
    {} as never,
    { query } as never,
  );
  return { subject, query, limiter };
}

function response() {
  const fake = {
    set: vi.fn(() => fake),
    status: vi.fn(() => fake),
    type: vi.fn(() => fake),
    send: vi.fn(() => fake),
  };
  return fake as unknown as Response & typeof fake;
}

function openInteraction(organizationId: string | null = ORGANIZATION) {
  const interactionFinished = vi.fn(async () => {});
  const open = {
    provider: { interactionFinished },
    details: { uid: 'uid' },
    requester: { clientName: 'App', organizationId, organizationName: 'Org', firstParty: false },
  } as unknown as OpenInteraction;
  return { open, interactionFinished };
}

describe('Interactions: the audit log of sign-ins', () => {
  it('records a success, by and of the person, under their organisation, before letting them in', async () => {
    const { subject, query } = interactions();
    const { open, interactionFinished } = openInteraction();
    await subject.finishLogin(open, {} as never, response(), USER, 'password', ['pwd']);
    expect(rows(query)).toEqual([
      {
        organizationId: ORGANIZATION,
        mode: 'live',
        action: 'sign_in.succeeded',
        actor: { type: 'person', id: PERSON },
        target: { type: 'person', id: PERSON },
        details: { method: 'password' },
      },
    ]);
    expect(query.mock.invocationCallOrder[0]).toBeLessThan(
      interactionFinished.mock.invocationCallOrder[0]!,
    );
  });

  it('refuses a sign-in it cannot record: the error passes, the interaction is not finished', async () => {
    const { subject, query } = interactions();
    query.mockRejectedValueOnce(new Error('connection terminated'));
    const { open, interactionFinished } = openInteraction();
    await expect(
      subject.finishLogin(open, {} as never, response(), USER, 'ldap', ['pwd']),
    ).rejects.toThrow('connection terminated');
    expect(interactionFinished).not.toHaveBeenCalled();
  });

  it('records the right person for another organisation’s application as a failure', async () => {
    const { subject, query } = interactions();
    const { open, interactionFinished } = openInteraction('another-organization');
    const page = response();
    await subject.finishLogin(open, {} as never, page, USER, 'saml');
    expect(page.status).toHaveBeenCalledWith(403);
    expect(interactionFinished).not.toHaveBeenCalled();
    expect(rows(query).map(({ action, details }) => ({ action, details }))).toEqual([
      { action: 'sign_in.failed', details: { method: 'saml', reason: 'other_organization' } },
    ]);
  });

  it('records a wrong password for a known email, counted against the limits, without the password', async () => {
    const { subject, query, limiter } = interactions();
    await subject.recordFailure(
      'ada@example.test',
      '203.0.113.7',
      'password',
      'invalid_credentials',
    );
    expect(limiter.recordFailure).toHaveBeenCalledWith('ada@example.test', '203.0.113.7');
    const [row] = rows(query);
    expect(row).toMatchObject({
      organizationId: ORGANIZATION,
      action: 'sign_in.failed',
      actor: { type: 'person', id: PERSON },
      target: { type: 'person', id: PERSON },
      details: { method: 'password', reason: 'invalid_credentials' },
    });
  });

  it('records nothing for an email no person has, but still counts it', async () => {
    const { subject, query, limiter } = interactions({ known: false });
    await subject.recordFailure(
      'nobody@example.test',
      '203.0.113.7',
      'password',
      'invalid_credentials',
    );
    expect(limiter.recordFailure).toHaveBeenCalled();
    expect(query).not.toHaveBeenCalled();
  });

  it('records a refusal no guess gets past without counting it', async () => {
    const { subject, query, limiter } = interactions();
    await subject.recordFailure('ada@example.test', '203.0.113.7', 'ldap', 'unavailable');
    expect(limiter.recordFailure).not.toHaveBeenCalled();
    expect(rows(query)[0]!.details).toEqual({ method: 'ldap', reason: 'unavailable' });
  });

  it('records each attempt refused for too many failures, for a known email only', async () => {
    const locked = interactions({ wait: { seconds: 840 } });
    const page = response();
    expect(await locked.subject.tooManyFailures(page, 'ada@example.test', 'a', 'password')).toMatch(
      /Too many failed attempts/,
    );
    expect(page.set).toHaveBeenCalledWith('Retry-After', '840');
    expect(rows(locked.query)).toMatchObject([
      {
        action: 'sign_in.locked',
        actor: { type: 'person', id: PERSON },
        details: { method: 'password', retry_after_seconds: 840 },
      },
    ]);

    const unknown = interactions({ known: false, wait: { seconds: 840 } });
    expect(await unknown.subject.tooManyFailures(response(), 'x@y.test', 'a', 'ldap')).not.toBe(
      null,
    );
    expect(unknown.query).not.toHaveBeenCalled();

    const free = interactions({ wait: null });
    expect(await free.subject.tooManyFailures(response(), 'ada@example.test', 'a', 'ldap')).toBe(
      null,
    );
    expect(free.query).not.toHaveBeenCalled();
  });
});

describe('recordSamlRefusal', () => {
  it('files a refused response under the connection’s organisation, by the service acting for it', async () => {
    const query = vi.fn(async () => []);
    const connection = {
      id: '0190a0a0-0000-7000-8000-000000000003',
      organizationId: ORGANIZATION,
    } as SsoConnection;
    const id = toPublicId('ssoConnection', connection.id);
    await recordSamlRefusal({ query } as never, connection, {
      ok: false,
      reason: 'saml_refused',
      detail: 'signature_invalid',
    });
    expect(rows(query)).toEqual([
      {
        organizationId: ORGANIZATION,
        mode: 'live',
        action: 'sign_in.failed',
        actor: { type: 'system', id },
        target: { type: 'sso_connection', id },
        details: { method: 'saml', reason: 'saml_refused', saml_error: 'signature_invalid' },
      },
    ]);
  });
});
