import { Injectable } from '@nestjs/common';
import { AppError, parsePrefixedId, type Mode, type Principal, type Tenant } from '#common';
import { Sql, type Transaction } from '#database';
import { EngineRegistry } from '#engines';
import { AuditLog, EventLog } from '#events';
import {
  assertRunningWorkWithin,
  OrganizationLimitsCache,
  type ConcurrentWorkKind,
  type OrganizationLimits,
} from '#organizations';
import { AnalystLifecycle } from '../analysts/analyst-lifecycle.js';
import type { BatchEntity } from '../batches/batch.entity.js';
import { BatchRecords } from '../batches/batch-records.js';
import type { WorkTable } from '../work-table.repository.js';
import type { PlannedWork, WorkCreation } from './work-creation.js';
import { recordFailure } from './work-failure.js';
import type { WorkIdentity } from './work-identity.js';

/** What the lifecycle reads of any kind's work. */
export interface WorkRecord {
  id: string;
  organizationId: string;
  mode: Mode;
  status: string;
  engine: string;
  eventSequence: number;
}

/**
 * A kind of work as the shared lifecycle sees it: its public ids and noun,
 * its table, the events field that names it, and the few steps only it
 * knows. Everything else — finding, cancelling, deleting with redaction and
 * audit, the concurrent-work limit, closing its tasking — is the lifecycle's.
 */
export interface WorkKind<W extends WorkRecord> {
  /** Its names and failure event, shared with its analyst kind (WorkIdentity). */
  identity: WorkIdentity<W>;
  // The table's own types do not matter here, only the shared statements.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  table: WorkTable<W, any, any>;
  /** The plan's concurrent-work limit its running work counts against, if any. */
  concurrency?: ConcurrentWorkKind;
  /** How its work is created (WorkLifecycle.create). */
  // The request, tasking and computed types are the kind's own.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  creation?: WorkCreation<W, any, any, any>;
  /** What else of the work goes when it is deleted (dowsing's readings). */
  forgetAlso?(tx: Transaction, tenant: Tenant, id: string): Promise<void>;
  /** What a cancellation of running work says; absent when the kind's work cannot be cancelled. */
  cancelledMessage?: string;
}

/**
 * The steps every kind of work takes the same way (issue 40): a kind
 * describes itself (WorkKind) and the lifecycle does the rest, so a rule of
 * these steps — 404 for an id of another tenant, audit and event redaction
 * on delete, the 429 of the concurrent-work limit — holds for every kind.
 */
@Injectable()
export class WorkLifecycle {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventLog,
    private readonly analysts: AnalystLifecycle,
    private readonly engines: EngineRegistry,
    private readonly limits: OrganizationLimitsCache,
    private readonly batches: BatchRecords,
  ) {}

  /**
   * Creates work of a kind, one piece or a batch (all or none): the engines
   * chosen (`engineFor`) and people's tasking checked before the
   * transaction, then in one transaction the batch, each row with its
   * created event (which the outbox relay turns into the job that runs it)
   * and its tasking, and the concurrent-work limit over all of it.
   */
  async create<W extends WorkRecord, I>(
    kind: WorkKind<W>,
    tenant: Tenant,
    inputs: readonly I[],
    requestId: string | null,
    asBatch: boolean,
  ): Promise<{ batch: BatchEntity | null; created: W[] }> {
    const creation = kind.creation;
    if (!creation) throw new Error(`${kind.identity.noun} describes no creation`);
    const engines = await this.enginesFor(creation, tenant, inputs, asBatch);
    const items: PlannedWork<I, unknown>[] = [];
    for (const [index, input] of inputs.entries()) {
      const at = asBatch ? `${creation.batchField}${index}.` : '';
      const people =
        engines[index] === 'analyst' ? await creation.people!.prepare(tenant, input, at) : null;
      items.push({ input, engine: engines[index]!, people, index });
    }
    // Read before the transaction: a cache miss or a query inside it would wait for a
    // second pool connection while holding one, and a burst of creates would deadlock the pool.
    const [limits, computed] = await Promise.all([
      kind.concurrency ? this.limits.get(tenant.organizationId) : null,
      creation.beforeTransaction?.(tenant, items) ?? items.map(() => undefined),
    ]);
    return this.sql.transaction(async (tx) => {
      const batch = asBatch
        ? await this.batches.insert(tx, tenant, creation.batchKind, inputs.length, requestId)
        : null;
      const created: W[] = [];
      const now = new Date();
      for (const item of items) {
        const work = creation.build(tenant, item, computed[item.index], {
          batchId: batch?.id ?? null,
          now,
        });
        await kind.table.insert(tx, tenant, work);
        const { type, data } = creation.createdEvent(work);
        await this.events.append(tx, tenant, type, data as never, requestId);
        if (item.people) await creation.people!.task(tx, tenant, work, item.people, requestId);
        await creation.answered?.(tx, tenant, work, computed[item.index], requestId);
        created.push(work);
      }
      await this.assertWithinLimit(kind, tx, tenant, limits);
      return { batch, created };
    });
  }

  /**
   * The engine of each request, the one function that chooses it: `analyst`
   * when people do the work (AnalystLifecycle.engineFor: never in the sandbox;
   * in live mode when asked, or by default when the organisation has an
   * active analyst), else the registry's engine of the kind and mode (or the
   * kind's own, for a kind that runs itself). The organisation is asked once
   * per distinct request.
   */
  async enginesFor<I>(
    // The kind's row, tasking and computed types do not matter here.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    creation: WorkCreation<any, I, any, any>,
    tenant: Tenant,
    inputs: readonly I[],
    inBatch: boolean,
  ): Promise<string[]> {
    const engine = creation.engineKind
      ? this.engines.engineFor(creation.engineKind, tenant.mode)
      : (creation.engineName ?? 'simulated');
    const people = creation.people;
    if (!people) return inputs.map(() => engine);
    const answers = new Map<string | undefined, Promise<'simulated' | 'analyst'>>();
    const chosen = await Promise.all(
      inputs.map((input) => {
        const asked = people.requestedEngine(input, inBatch);
        if (!answers.has(asked)) answers.set(asked, this.analysts.engineFor(tenant, asked));
        return answers.get(asked)!;
      }),
    );
    return chosen.map((choice) => (choice === 'analyst' ? 'analyst' : engine));
  }

  /** The work with that public id in the tenant, else NOT_FOUND. */
  async find<W extends WorkRecord>(
    kind: WorkKind<W>,
    tenant: Tenant,
    publicId: string,
  ): Promise<W> {
    const { idPrefix, noun } = kind.identity;
    const uuid = parsePrefixedId(idPrefix, publicId);
    const work = uuid === null ? null : await kind.table.find(tenant, uuid);
    if (!work) throw AppError.notFound(noun, publicId);
    return work;
  }

  /** 429 when the work just inserted in `tx` takes the tenant over its plan's concurrent work. */
  assertWithinLimit<W extends WorkRecord>(
    kind: WorkKind<W>,
    tx: Transaction,
    tenant: Tenant,
    limits: OrganizationLimits | null,
  ): Promise<void> {
    if (!kind.concurrency) return Promise.resolve();
    return assertRunningWorkWithin(limits, kind.concurrency, {
      countLocked: (atMost) => kind.table.countRunningLocked(tx, tenant, atMost),
      nextCompletion: () => kind.table.nextCompletion(tenant, tx),
    });
  }

  /**
   * Cancels work that has not finished: it becomes `failed` with reason
   * `cancelled`, its tasking (if people do it) closes, and the kind's failure
   * event announces it, in one transaction. The worker's next step sees the
   * stored state and stops.
   */
  async cancel<W extends WorkRecord>(
    kind: WorkKind<W>,
    tenant: Tenant,
    publicId: string,
    requestId: string | null,
  ): Promise<W> {
    const { concurrency, cancelledMessage, identity } = kind;
    const { idPrefix, noun, tasked, failedEvent } = identity;
    if (cancelledMessage === undefined || !concurrency) {
      throw new Error(`${noun} cannot be cancelled`);
    }
    const uuid = parsePrefixedId(idPrefix, publicId);
    if (uuid === null) throw AppError.notFound(noun, publicId);
    return this.sql.transaction(async (tx) => {
      const current = await kind.table.findForUpdate(tx, tenant, uuid);
      if (!current) throw AppError.notFound(noun, publicId);
      if (!concurrency.running.includes(current.status)) {
        const capitalised = noun[0]!.toUpperCase() + noun.slice(1);
        throw new AppError('CONFLICT', `${capitalised} ${publicId} has already ${current.status}`, {
          field: 'status',
          issue: `only ${concurrency.running.join(' or ')} ${concurrency.noun} can be cancelled; this one is ${current.status}`,
        });
      }
      if (tasked) await this.analysts.cancelled(tasked, tx, current, requestId);
      const failure = { reason: 'cancelled', message: cancelledMessage, failedAt: new Date() };
      return recordFailure(
        tx,
        tenant,
        { table: kind.table, events: this.events, failedEvent },
        current,
        failure,
        current.eventSequence + 1,
        requestId,
      );
    });
  }

  /**
   * Deletes work in one transaction: its row and history case go, with its
   * tasking and whatever else the kind keeps of it; its events in the log
   * shrink to its id and sequence, so replays and pending deliveries carry
   * nothing of it; an audit event keeps who deleted it, when, and in which
   * request. Running work stops at its next step.
   */
  async delete<W extends WorkRecord>(
    kind: WorkKind<W>,
    principal: Principal,
    publicId: string,
  ): Promise<void> {
    const { idPrefix, noun, tasked, eventIdField, deletedAction } = kind.identity;
    const uuid = parsePrefixedId(idPrefix, publicId);
    if (uuid === null) throw AppError.notFound(noun, publicId);
    await this.sql.transaction(async (tx) => {
      const createdAt = await kind.table.delete(tx, principal, uuid);
      if (createdAt === null) throw AppError.notFound(noun, publicId);
      if (tasked) await this.analysts.forget(tasked, tx, principal, uuid);
      await kind.forgetAlso?.(tx, principal, uuid);
      await this.events.redact(tx, principal, eventIdField, publicId, createdAt);
      await AuditLog.record(tx, principal, {
        action: deletedAction,
        actor: principal,
        target: { type: deletedAction.slice(0, -'.deleted'.length), id: publicId },
      });
    });
  }
}
