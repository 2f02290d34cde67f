import { describe, expect, it } from 'vitest';
import type { Sql, Transaction } from '#database';
import type { EventEntity, EventLog, EventsRepository } from '#events';
import { AttemptRecords } from './attempt-records.js';
import type { ClaimedDelivery } from './delivery-claims.js';
import type {
  DeliveryLeasesRepository,
  DeliveryOutcome,
  LeasedDelivery,
} from './delivery-leases.repository.js';
import { DeliveryOutcomes, type DeliveryResult } from './delivery-outcomes.js';
import type { WebhooksRepository } from './webhooks.repository.js';

/** DeliveryOutcomes recording its batches; `held` stalls them, `failWhen` fails one. */
function fakeOutcomes(failWhen: (ids: string[]) => boolean = () => false) {
  const writes: string[][] = [];
  let held: Promise<void> | null = null;
  let release = () => {};
  const outcomes = {
    write: async (results: DeliveryResult[]) => {
      if (held) await held;
      const ids = results.map((result) => result.delivery.id);
      if (failWhen(ids)) throw new Error('deadlock detected');
      writes.push(ids);
      return [];
    },
  } as unknown as DeliveryOutcomes;
  return {
    outcomes,
    writes,
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

describe('AttemptRecords', () => {
  it('writes what ends while a batch is being written in one batch after it', async () => {
    const db = fakeOutcomes();
    const batches: string[][] = [];
    const records = new AttemptRecords(db.outcomes, (results) =>
      batches.push(results.map((result) => result.delivery.id)),
    );
    db.hold();
    records.record(succeeded('a'));
    await new Promise((resolve) => setImmediate(resolve));
    for (const id of ['b', 'c', 'd']) records.record(succeeded(id, 'shared-event'));
    db.open();
    await writtenCount(batches, 4);
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
    expect(db.writes).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('writes the outcomes of a failed batch one by one, so one bad outcome holds back no other', async () => {
    const db = fakeOutcomes((ids) => ids.includes('bad'));
    const batches: string[][] = [];
    const records = new AttemptRecords(db.outcomes, (results) =>
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
    expect(db.writes).toEqual([['first'], ['good']]);
  });
});

describe('DeliveryOutcomes', () => {
  /** DeliveryOutcomes on repositories that record what they are given. */
  function outcomesOn(written: { handedOver: LeasedDelivery[]; settled: Map<string, number> }) {
    const calls = {
      outcomes: [] as DeliveryOutcome[][],
      slots: [] as (readonly string[])[],
      settled: [] as { settled: ReadonlyMap<string, number>; read: readonly string[] }[],
    };
    const tx = {} as Transaction;
    const sql = { transaction: <T>(work: (tx: Transaction) => Promise<T>) => work(tx) };
    const leases = {
      writeOutcomesAcrossTenants: async (
        _tx: Transaction,
        outcomes: DeliveryOutcome[],
        slots: readonly string[],
      ) => {
        calls.outcomes.push(outcomes);
        calls.slots.push(slots);
        return written;
      },
    };
    const events = {
      settlePendingWebhooksAcrossTenants: async (
        _tx: Transaction,
        settled: ReadonlyMap<string, number>,
        read: readonly string[],
      ) => {
        calls.settled.push({ settled, read });
        return read.map((id) => ({ id, type: 'session.created' }) as EventEntity);
      },
    };
    const outcomes = new DeliveryOutcomes(
      sql as unknown as Sql,
      leases as unknown as DeliveryLeasesRepository,
      {} as WebhooksRepository,
      events as unknown as EventsRepository,
      {} as EventLog,
    );
    return { outcomes, calls };
  }

  it('writes an attempt-less cancellation beside attempts', async () => {
    const { outcomes, calls } = outcomesOn({ handedOver: [], settled: new Map() });
    const cancelled: DeliveryResult = {
      ...succeeded('c', 'other-event'),
      state: 'cancelled',
      attempts: 0,
      statusCode: null,
      error: 'the webhook is disabled',
      attempt: null,
    };
    await outcomes.write([
      succeeded('a', 'shared-event'),
      succeeded('b', 'shared-event'),
      cancelled,
    ]);
    expect(calls.outcomes).toHaveLength(1);
    const [written] = calls.outcomes;
    expect(written!.map((outcome) => outcome.deliveryId)).toEqual(['a', 'b', 'c']);
    expect(written!.map((outcome) => outcome.state)).toEqual([
      'succeeded',
      'succeeded',
      'cancelled',
    ]);
    expect(written!.map((outcome) => outcome.error)).toEqual([
      null,
      null,
      'the webhook is disabled',
    ]);
    // Two attempts (a cancellation has none).
    expect(written!.map((outcome) => outcome.attempt?.durationMs ?? null)).toEqual([3, 3, null]);
    // Nothing settled and nothing handed over: the events are left alone.
    expect(calls.settled).toEqual([]);
  });

  it('settles the events and reads those of the deliveries handed over in one call', async () => {
    const handed: LeasedDelivery = {
      ...succeeded('next', 'next-event').delivery,
    };
    const { outcomes, calls } = outcomesOn({
      handedOver: [handed],
      settled: new Map([['shared-event', 2]]),
    });
    const claimed = await outcomes.write(
      [succeeded('a', 'shared-event'), succeeded('b', 'shared-event')],
      true,
    );
    // Fresh leases: both slots are handed over.
    expect(calls.slots).toEqual([['a', 'b']]);
    expect(calls.settled).toEqual([
      { settled: new Map([['shared-event', 2]]), read: ['next-event'] },
    ]);
    expect(claimed.map((delivery) => [delivery.id, delivery.event?.id])).toEqual([
      ['next', 'next-event'],
    ]);
  });
});
