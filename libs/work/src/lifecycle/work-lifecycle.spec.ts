import { describe, expect, it, vi } from 'vitest';
import { newUuid, toPublicId, type Principal } from '#common';
import type { Transaction } from '#database';
import { AnalystLifecycle } from '../analysts/analyst-lifecycle.js';
import { WorkLifecycle, type WorkKind, type WorkRecord } from './work-lifecycle.js';
import { refusal } from '#common/testing';

/**
 * The steps every kind of work shares, with a kind described here (as a
 * fourth kind would be) and its table, the event log and the tasking faked:
 * what happens, in which order, in one unit of work.
 */

const principal = {
  organizationId: newUuid(),
  mode: 'test',
  subject: 'key_1',
} as unknown as Principal;

function world(options: { createdAt?: Date | null } = {}) {
  const steps: string[] = [];
  const step =
    <T>(name: string, value: T) =>
    () => {
      steps.push(name);
      return Promise.resolve(value);
    };
  const tx = { query: vi.fn(step('audit', undefined)) } as unknown as Transaction;
  const sql = {
    transaction: (work: (tx: Transaction) => Promise<unknown>) => {
      steps.push('begin');
      return work(tx);
    },
  };
  const table = {
    find: vi.fn(() => Promise.resolve(null)),
    delete: vi.fn(
      step('delete row', options.createdAt === undefined ? new Date() : options.createdAt),
    ),
  };
  const events = { redact: vi.fn(step('redact events', undefined)) };
  const tasking = { forget: vi.fn(step('forget tasking', undefined)) };
  const kind: WorkKind<WorkRecord> = {
    identity: {
      idPrefix: 'sess',
      noun: 'probe',
      feature: 'probes',
      tasked: 'session',
      eventIdField: 'session_id',
      deletedAction: 'probe.deleted',
      failedEvent: () => ({ type: 'session.failed', data: {} as never }),
    },
    table: table as never,
    forgetAlso: vi.fn(step('forget readings', undefined)),
  };
  const lifecycle = new WorkLifecycle(
    sql as never,
    events as never,
    new AnalystLifecycle(tasking as never, {} as never, {} as never, {} as never, events as never),
    {} as never,
    {} as never,
    {} as never,
  );
  return { lifecycle, kind, table, events, tasking, tx, steps };
}

describe('WorkLifecycle.delete', () => {
  it('deletes the row, then what else the work had, redacts its events and audits it', async () => {
    const { lifecycle, kind, table, events, tasking, tx, steps } = world();
    const id = newUuid();
    const publicId = toPublicId('session', id);
    await lifecycle.delete(kind, principal, publicId);
    expect(steps).toEqual([
      'begin',
      'delete row',
      'forget tasking',
      'forget readings',
      'redact events',
      'audit',
    ]);
    expect(table.delete).toHaveBeenCalledWith(tx, principal, id);
    expect(tasking.forget).toHaveBeenCalledWith(tx, principal, 'session', id);
    expect(events.redact).toHaveBeenCalledWith(
      tx,
      principal,
      'session_id',
      publicId,
      expect.any(Date),
    );
    expect(vi.mocked(tx.query).mock.calls[0]![1]).toContain('probe.deleted');
  });

  it('answers 404 naming the kind for a malformed id or one the tenant does not have', async () => {
    const { lifecycle, kind, steps } = world({ createdAt: null });
    const malformed = await refusal(lifecycle.delete(kind, principal, 'sess_nope'));
    expect(malformed.code).toBe('NOT_FOUND');
    expect(malformed.message).toContain('probe');
    const unknown = toPublicId('session', newUuid());
    expect((await refusal(lifecycle.delete(kind, principal, unknown))).code).toBe('NOT_FOUND');
    // Nothing after the row: no redaction, no audit of a deletion that did not happen.
    expect(steps).toEqual(['begin', 'delete row']);
  });
});

describe('WorkLifecycle.cancel and assertWithinLimit', () => {
  it('refuses to cancel a kind that describes no cancellation', async () => {
    const { lifecycle, kind } = world();
    await expect(
      lifecycle.cancel(kind, principal, toPublicId('session', newUuid()), null),
    ).rejects.toThrow(/cannot be cancelled/);
  });

  it('counts nothing for a kind with no concurrent-work limit', async () => {
    const { lifecycle, kind, tx } = world();
    const limits = { concurrentSessions: 0 } as never;
    await expect(lifecycle.assertWithinLimit(kind, tx, principal, limits)).resolves.toBeUndefined();
  });
});
