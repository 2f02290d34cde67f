import { describe, expect, it, vi } from 'vitest';
import { withRequestOrigin, type Principal } from '#common';
import type { Queryable } from '#database';
import { AuditLog, actorOf, auditChanges, REDACTED, redacted } from './audit-log.js';

const principal: Principal = {
  organizationId: '0190a1b2-0000-7000-8000-000000000001',
  mode: 'live',
  credential: 'access_token',
  subject: 'cli_dashboard',
  scopes: [],
};

function recorder() {
  const query = vi.fn((_text: string, _parameters?: readonly unknown[]) =>
    Promise.resolve({ rows: [], rowCount: 1 }),
  );
  return { on: { query, rows: vi.fn() } as unknown as Queryable, query };
}

describe('AuditLog.record', () => {
  it('takes the request id, address and user agent from the request being served', async () => {
    const { on, query } = recorder();
    await withRequestOrigin({ requestId: 'req_1', ip: '203.0.113.7', userAgent: 'curl/8' }, () =>
      AuditLog.record(on, principal, {
        action: 'webhook.deleted',
        actor: principal,
        target: { type: 'webhook', id: 'wh_1' },
      }),
    );
    const parameters = query.mock.calls[0]![1]!;
    expect(parameters.slice(1)).toEqual([
      principal.organizationId,
      'live',
      'webhook.deleted',
      'client',
      'cli_dashboard',
      'webhook',
      'wh_1',
      '203.0.113.7',
      'curl/8',
      'req_1',
      null,
      null,
    ]);
  });

  it('outside a request (the worker) records no origin', async () => {
    const { on, query } = recorder();
    await AuditLog.record(on, principal, {
      action: 'person.created',
      actor: { type: 'system', id: 'sso_1' },
      target: { type: 'person', id: 'usr_1' },
    });
    expect(query.mock.calls[0]![1]!.slice(4, 11)).toEqual([
      'system',
      'sso_1',
      'person',
      'usr_1',
      null,
      null,
      null,
    ]);
  });

  it('never stores a secret, whatever the caller passes', async () => {
    const { on, query } = recorder();
    await AuditLog.record(on, principal, {
      action: 'sso_connection.updated',
      actor: principal,
      target: { type: 'sso_connection', id: 'sso_1' },
      changes: {
        bind_password: { before: 'old secret', after: 'new secret' },
        name: { before: 'A', after: 'B' },
      },
      details: { client_secret: 'abc', note: 'sk_live_0123456789abcdefghijklmnopqrstu' },
    });
    const [changes, details] = query.mock.calls[0]![1]!.slice(11) as string[];
    expect(JSON.parse(changes!)).toEqual({
      bind_password: { before: REDACTED, after: REDACTED },
      name: { before: 'A', after: 'B' },
    });
    expect(JSON.parse(details!)).toEqual({ client_secret: REDACTED, note: REDACTED });
  });
});

describe('actorOf', () => {
  it('reads a credential as the person, API key or OAuth client behind it', () => {
    expect(actorOf({ ...principal, credential: 'api_key', subject: 'key_1' })).toEqual({
      type: 'api_key',
      id: 'key_1',
    });
    const person = 'usr_01jh2x7v4ke8rbk3a8y0v0d7qz';
    expect(actorOf({ ...principal, subject: person })).toEqual({ type: 'person', id: person });
    expect(actorOf(principal)).toEqual({ type: 'client', id: 'cli_dashboard' });
  });
});

describe('auditChanges', () => {
  it('keeps only the fields whose values differ, by their JSON', () => {
    expect(
      auditChanges(
        { name: 'a', scopes: ['x'], url: 'https://a' },
        { name: 'a', scopes: ['x', 'y'], url: 'https://b', description: null },
      ),
    ).toEqual({
      scopes: { before: ['x'], after: ['x', 'y'] },
      url: { before: 'https://a', after: 'https://b' },
    });
    expect(auditChanges({ name: 'a' }, { name: 'a' })).toBeNull();
  });
});

describe('redacted', () => {
  it('leaves ordinary values alone and nested secrets out', () => {
    expect(
      redacted({ scopes: ['a'], nested: { private_key: 'k', token_endpoint_auth_method: 'x' } }),
    ).toEqual({
      scopes: ['a'],
      nested: { private_key: REDACTED, token_endpoint_auth_method: 'x' },
    });
  });
});
