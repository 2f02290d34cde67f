import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Principal, type Tenant } from '#common';
import { Sql, type JsonObject, type Transaction } from '#database';
import {
  DOWSING_DEFAULT_BASELINE,
  EngineRegistry,
  type DowsingEngineOutcome,
  type DowsingQueryType,
  type DowsingRequest,
} from '#engines';
import { EventLog, recordAudit } from '#events';
import { VerifiedRecords } from '#history';
import { OrganizationsService } from '#organizations';
import { BatchRecords, type BatchEntity } from '#work';
import type { VerifiedRecord } from '#statistics';
import {
  ANALYST_DOWSING_ENGINE_VERSION,
  AnalystDowsing,
  type DowsingPeople,
  type DowsingTaskingRequest,
} from './analyst-dowsing.js';
import { queryCompletedData, queryCreatedData, queryFailedData } from './dowsing-events.js';
import { DowsingQueriesRepository } from './dowsing-queries.repository.js';
import { DowsingReadingsRepository } from './dowsing-readings.repository.js';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

/** A query to ask, and how people are to answer it (absent: the default engine). */
export interface NewDowsingQuery {
  request: DowsingRequest;
  people?: DowsingPeople | undefined;
}

/** A query ready to store: the engine's outcome, or the tasking of people who will answer it. */
interface Answered {
  request: DowsingRequest;
  engine: string;
  outcome: DowsingEngineOutcome | null;
  people: DowsingTaskingRequest | null;
}

/**
 * Dowsing queries as API callers see them. The simulated engine answers
 * within the request: the query is stored completed (or failed) with its
 * `dowsing.query_created` and `dowsing.query_completed` events and its
 * located readings, in one transaction. Queries done by people (the
 * `analyst` engine, AnalystDowsing) are stored `pending` and tasked in the
 * same transaction; their submissions answer them later. The answer rests
 * on the organisation's verified outcomes of the query type when it has any
 * (VerifiedRecords: one indexed statement per query type asked).
 */
@Injectable()
export class DowsingService {
  constructor(
    private readonly sql: Sql,
    private readonly queries: DowsingQueriesRepository,
    private readonly readings: DowsingReadingsRepository,
    private readonly events: EventLog,
    private readonly engines: EngineRegistry,
    private readonly organizations: OrganizationsService,
    private readonly batches: BatchRecords,
    private readonly verified: VerifiedRecords,
    private readonly analysts: AnalystDowsing,
  ) {}

  async create(
    tenant: Tenant,
    request: DowsingRequest,
    requestId: string | null,
    people?: DowsingPeople,
  ): Promise<DowsingQueryEntity> {
    const [answered] = await this.answer(tenant, [{ request, people }], '');
    return this.sql.transaction((tx) => this.insert(tx, tenant, answered!, requestId, null));
  }

  /**
   * Up to 100 queries of any variant in one transaction: all of them or none.
   * Each item is done by the engine it asks for: items of the `analyst`
   * engine are tasked one by one, each with its own tasking fields.
   */
  async createBatch(
    tenant: Tenant,
    requests: readonly (DowsingRequest | NewDowsingQuery)[],
    requestId: string | null,
  ): Promise<{ batch: BatchEntity; queries: DowsingQueryEntity[] }> {
    const answered = await this.answer(
      tenant,
      requests.map((item) => ('request' in item ? item : { request: item })),
      'queries.',
    );
    return this.sql.transaction(async (tx) => {
      const batch = await this.batches.insert(tx, tenant, 'dowsing', requests.length, requestId);
      const queries: DowsingQueryEntity[] = [];
      for (const item of answered) {
        queries.push(await this.insert(tx, tenant, item, requestId, batch.id));
      }
      return { batch, queries };
    });
  }

  /**
   * The engine's answers, before any transaction (they are pure computation);
   * queries for people are checked (AnalystDowsing.prepare) and left unanswered.
   */
  private async answer(
    tenant: Tenant,
    items: readonly NewDowsingQuery[],
    at: string,
  ): Promise<Answered[]> {
    const name = this.engines.engineFor('dowsing', tenant.mode);
    const engine = this.engines.dowsing(name);
    const defaults = new Map<string | undefined, Promise<'simulated' | 'analyst'>>();
    const engineOf = (requested: 'simulated' | 'analyst' | undefined) => {
      if (!defaults.has(requested)) {
        defaults.set(requested, this.analysts.engineFor(tenant, requested));
      }
      return defaults.get(requested)!;
    };
    const engines = await Promise.all(items.map((item) => engineOf(item.people?.engine)));
    const tasking: (DowsingTaskingRequest | null)[] = [];
    for (const [i, item] of items.entries()) {
      tasking.push(
        engines[i] === 'analyst'
          ? await this.analysts.prepare(tenant, item.people, at === '' ? '' : `${at}${i}.`)
          : null,
      );
    }
    const inline = items.filter((_, i) => tasking[i] === null).map((item) => item.request);
    const [orgSeed, records] =
      inline.length > 0 && engine.answersInline
        ? await Promise.all([
            this.organizations.engineSeed(tenant.organizationId),
            this.verifiedRecords(tenant, inline),
          ])
        : ['', new Map<DowsingQueryType, VerifiedRecord>()];
    return Promise.all(
      items.map(async ({ request }, i) => {
        const people = tasking[i]!;
        if (people) return { request, engine: 'analyst', outcome: null, people };
        if (!engine.answersInline) return { request, engine: name, outcome: null, people: null };
        return {
          request,
          engine: name,
          outcome: await engine.run(request, orgSeed, records.get(request.queryType), tenant.mode),
          people: null,
        };
      }),
    );
  }

  /** The tenant's verified record of each query type asked. */
  private async verifiedRecords(
    tenant: Tenant,
    requests: readonly DowsingRequest[],
  ): Promise<Map<DowsingQueryType, VerifiedRecord>> {
    const types = [...new Set(requests.map((request) => request.queryType))];
    const records = await Promise.all(
      types.map((type) =>
        this.verified.of(tenant, {
          type: 'dowsing',
          subtypes: [type],
          defaultP0: DOWSING_DEFAULT_BASELINE[type],
        }),
      ),
    );
    return new Map(types.map((type, i) => [type, records[i]!]));
  }

  private async insert(
    tx: Transaction,
    tenant: Tenant,
    answered: Answered,
    requestId: string | null,
    batchId: string | null,
  ): Promise<DowsingQueryEntity> {
    const { request, outcome } = answered;
    const now = new Date();
    const query: DowsingQueryEntity = {
      id: newUuid(),
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      variant: request.input.variant,
      queryType: request.queryType,
      question: request.question,
      precisionLevel: request.precisionLevel,
      context: request.context as JsonObject,
      input: request.input as JsonObject,
      status: outcome === null ? 'pending' : outcome.status,
      engine: answered.engine,
      engineVersion: answered.people
        ? ANALYST_DOWSING_ENGINE_VERSION
        : (outcome?.engineVersion ?? null),
      engineSeed: outcome?.seed ?? null,
      result: outcome?.status === 'completed' ? (outcome.result as unknown as JsonObject) : null,
      confidence: outcome?.status === 'completed' ? outcome.result.confidence : null,
      evidence: outcome?.status === 'completed' ? outcome.evidence : null,
      failureReason: outcome?.status === 'failed' ? outcome.reason : null,
      failureMessage: outcome?.status === 'failed' ? outcome.message : null,
      eventSequence: outcome === null ? 1 : 2,
      createdAt: now,
      updatedAt: now,
      completedAt: outcome === null ? null : now,
      batchId,
    };
    await this.queries.insert(tx, tenant, query);
    await this.events.append(
      tx,
      tenant,
      'dowsing.query_created',
      queryCreatedData(query),
      requestId,
    );
    if (answered.people) await this.analysts.task(tx, tenant, query, answered.people, requestId);
    if (outcome?.status === 'completed') {
      await this.readings.insertMany(tx, tenant, query, outcome.readings);
      await this.events.append(
        tx,
        tenant,
        'dowsing.query_completed',
        queryCompletedData(query, outcome.result, 2),
        requestId,
      );
    } else if (outcome?.status === 'failed') {
      await this.events.append(
        tx,
        tenant,
        'dowsing.query_failed',
        queryFailedData(query, 2),
        requestId,
      );
    }
    return query;
  }

  /** The query with that public id in the caller's organisation and mode, else NOT_FOUND. */
  async get(tenant: Tenant, publicId: string): Promise<DowsingQueryEntity> {
    const uuid = parsePublicId('dowsing', publicId);
    const query = uuid === null ? null : await this.queries.find(tenant, uuid);
    if (!query) throw AppError.notFound('dowsing query', publicId);
    return query;
  }

  /** The queries of a batch (found by BatchRecords, in the batch's tenant), in the order of the request. */
  batchItems(batch: BatchEntity): Promise<DowsingQueryEntity[]> {
    return this.queries.batchItems(batch, batch.id);
  }

  /**
   * Deletes a query with its readings in one transaction; its events shrink
   * to the query id and sequence; an audit record keeps who, when and in
   * which request.
   */
  async delete(principal: Principal, publicId: string, requestId: string | null): Promise<void> {
    const uuid = parsePublicId('dowsing', publicId);
    if (uuid === null) throw AppError.notFound('dowsing query', publicId);
    await this.sql.transaction(async (tx) => {
      const createdAt = await this.queries.delete(tx, principal, uuid);
      if (createdAt === null) throw AppError.notFound('dowsing query', publicId);
      await this.analysts.forget(tx, principal, uuid);
      await this.readings.deleteOfQuery(tx, principal, uuid);
      await this.events.redact(tx, principal, 'query_id', publicId, createdAt);
      await recordAudit(tx, principal, 'dowsing_query.deleted', publicId, requestId);
    });
  }
}
