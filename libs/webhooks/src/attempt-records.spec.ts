import { describe, expect, it } from 'vitest';
import type { DataSource, EntityManager } from 'typeorm';
import type { EventLog } from '#events';
import { AttemptRecords, type DeliveryResult } from './attempt-records.js';
import type { ClaimedDelivery } from './delivery-claims.js';

/** A DataSource recording its statements; `held` stalls them, `failWhen` fails one. */
function fakeDatabase(failWhen: (parameters: unknown[]) => boolean = () => false) {
  const statements: { text: string; parameters: unknown[] }[] = [];
  let held: Promise<void> | null = null;
  let release = () => {};
  const manager = {
    query: async (text: string, parameters: unknown[] = []) => {
      if (held) await held;
      if (failWhen(parameters)) throw new Error('deadlock detected');
      statements.push({ text, parameters });
      return [];
    },
  } as unknown as EntityManager;
  const dataSource = {
    manager,
    transaction: <T>(work: (tx: EntityManager) => Promise<T>) => work(manager),
  } as unknown as DataSource;
  return {
    dataSource,
    manager,
    statements,
    hold() {
      held = new Promise((resolve) => (release = resolve));
    },
    open() {
      held = null;
      release();
    },
  };
}

/** Resolves once `records` has written `count` outcomes. */
function writtenCount(batches: string[][], count: number) {
  return new Promise<void>((resolve) => {
    const check = () => (batches.flat().length >= count ? resolve() : setImmediate(check));
    check();
  });
}

function succeeded(id: string, eventId = `event-${id}`): DeliveryResult {
  const delivery: ClaimedDelivery = {
    id,
    webhookId: 'webhook',
    eventId,
    origin: 'event',
    attempts: 0,
    maxAttempts: 7,
    leasedAt: new Date(),
    webhook: null,
    event: null,
  };
  return {
    delivery,
    state: 'succeeded',
    attempts: 1,
    delayMs: 0,
    statusCode: 200,
    error: null,
    attempt: {
      startedAt: new Date(),
      outcome: {
        statusCode: 200,
        durationMs: 3,
        responseBody: 'ok',
        error: null,
        retryAfter: undefined,
      },
    },
    webhookChange: null,
  };
}

const events = {} as EventLog;

describe('AttemptRecords', () => {
  it('writes what ends while a batch is being written in one statement after it', async () => {
    const db = fakeDatabase();
    const batches: string[][] = [];
    const records = new AttemptRecords(db.dataSource, events, (results) =>
      batches.push(results.map((result) => result.delivery.id)),
    );
    db.hold();
    records.record(succeeded('a'));
    await new Promise((resolve) => setImmediate(resolve));
    for (const id of ['b', 'c', 'd']) records.record(succeeded(id, 'shared-event'));
    db.open();
    await writtenCount(batches, 4);
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
    expect(db.statements).toHaveLength(2);
    const { text, parameters } = db.statements[1]! as { text: string; parameters: unknown[][] };
    expect(text).toContain('INSERT INTO webhook_attempts');
    expect(text).toContain('UPDATE webhook_deliveries');
    // The event's pending count goes down by three in the same statement.
    expect(text).toContain(
      'UPDATE events e SET pending_webhooks = greatest(e.pending_webhooks - s.settled, 0)',
    );
    expect(parameters[1]).toEqual(['b', 'c', 'd']);
    expect(parameters[8]).toEqual(['b', 'c', 'd']);
    expect(parameters[10]).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('writes the outcomes of a failed batch one by one, so one bad outcome holds back no other', async () => {
    const db = fakeDatabase((parameters) => {
      const ids = parameters[8];
      return Array.isArray(ids) && ids.includes('bad');
    });
    const batches: string[][] = [];
    const records = new AttemptRecords(db.dataSource, events, (results) =>
      batches.push(results.map((result) => result.delivery.id)),
    );
    db.hold();
    records.record(succeeded('first'));
    await new Promise((resolve) => setImmediate(resolve));
    records.record(succeeded('good'));
    records.record(succeeded('bad'));
    db.open();
    await writtenCount(batches, 3);
    await records.flushed();
    // Both batches are reported (the bad one's lease expires), only what was written is written.
    expect(batches).toEqual([['first'], ['good', 'bad']]);
    expect(db.statements.map((statement) => statement.parameters[8])).toEqual([
      ['first'],
      ['good'],
    ]);
  });

  it('writes an attempt-less cancellation beside attempts', async () => {
    const db = fakeDatabase();
    const cancelled: DeliveryResult = {
      ...succeeded('c', 'other-event'),
      state: 'cancelled',
      attempts: 0,
      statusCode: null,
      error: 'the webhook is disabled',
      attempt: null,
    };
    await new AttemptRecords(db.dataSource, events, () => undefined).write(db.manager, [
      succeeded('a', 'shared-event'),
      succeeded('b', 'shared-event'),
      cancelled,
    ]);
    expect(db.statements).toHaveLength(1);
    const { parameters } = db.statements[0]! as { parameters: unknown[][] };
    // Two attempts (a cancellation has none), three deliveries.
    expect(parameters[1]).toEqual(['a', 'b']);
    expect(parameters[2]).toEqual([1, 1]);
    expect(parameters[8]).toEqual(['a', 'b', 'c']);
    expect(parameters[10]).toEqual(['succeeded', 'succeeded', 'cancelled']);
    expect(parameters[12]).toEqual([null, null, 'the webhook is disabled']);
  });
});
