import type { PreparedTasking } from '#analysts';
import type { Tenant } from '#common';
import type { Transaction } from '#database';
import type { WorkKind as EngineKind } from '#engines';
import type { EventDataMap, KnownEventType } from '#events';
import type { BatchKind } from '../batches/batch.entity.js';

/** An event of the catalogue with its data. */
export type CreatedEvent = {
  [T in KnownEventType]: { type: T; data: EventDataMap[T] };
}[KnownEventType];

/** One request of new work, once its engine is chosen and its tasking (if people do it) checked. */
export interface PlannedWork<I, P> {
  input: I;
  /** The engine that does it: `analyst` (people), else the registry's for the kind and mode. */
  engine: string;
  /** What it asks of people, checked; null when an engine does it. */
  people: P | null;
  /** Its place in the request: 0 for a single create, the item's index in a batch. */
  index: number;
}

/**
 * How a kind of work is created (WorkLifecycle.create): what the request
 * asks, what the new row holds and what its creation announces. The
 * lifecycle does the rest the same way for every kind — the engine choice,
 * the batch, one transaction, the tasking, the concurrent-work limit — and
 * the outbox starts the work: the created event is what the relay turns
 * into the job that runs it.
 *
 * `E` is what a kind computes for every item before the transaction (an
 * estimate, or an engine's whole answer when the kind answers in the request).
 */
export interface WorkCreation<W, I, P extends PreparedTasking, E = undefined> {
  /** The kind's engines in the registry; absent for a kind that runs itself (`engineName`). */
  engineKind?: EngineKind;
  /** The engine a kind that runs itself records (default `simulated`). */
  engineName?: string;
  /** What a batch of this kind is recorded as. */
  batchKind: BatchKind;
  /** How errors name a batch item's fields: `analyses.` becomes `analyses.3.`. */
  batchField: string;
  /** What the kind computes for the items before the transaction, one value per item. */
  beforeTransaction?(tenant: Tenant, items: readonly PlannedWork<I, P>[]): Promise<E[]>;
  /** The new work's row. */
  build(
    tenant: Tenant,
    item: PlannedWork<I, P>,
    computed: E,
    context: { batchId: string | null; now: Date },
  ): W;
  /** The created event of new work: the outbox relay starts the work from it. */
  createdEvent(work: W): CreatedEvent;
  /** After the tasking: what a kind that answers in the request records of the answer. */
  answered?(
    tx: Transaction,
    tenant: Tenant,
    work: W,
    computed: E,
    requestId: string | null,
  ): Promise<void>;
  /** How people do it, for a kind they can (its AnalystKindService). */
  people?: PeopleCreation<W, I, P>;
}

/** How people take on new work of a kind (the kind's side of AnalystLifecycle). */
export interface PeopleCreation<W, I, P> {
  /** The engine the request asks for, if it says; `simulated` keeps it from people. */
  requestedEngine(input: I, inBatch: boolean): 'simulated' | 'analyst' | undefined;
  /** Checks what the request asks of people; `at` prefixes the fields its errors name. */
  prepare(tenant: Tenant, input: I, at: string): Promise<P>;
  /** Gives the work to people, in its creating transaction. */
  task(
    tx: Transaction,
    tenant: Tenant,
    work: W,
    people: P,
    requestId: string | null,
  ): Promise<unknown>;
}
