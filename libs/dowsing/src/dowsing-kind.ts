import { Injectable } from '@nestjs/common';
import { newUuid, type Tenant } from '#common';
import type { JsonObject, Transaction } from '#database';
import {
  DOWSING_DEFAULT_BASELINE,
  EngineRegistry,
  type DowsingEngineOutcome,
  type DowsingQueryType,
  type DowsingRequest,
} from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { OrganizationsService } from '#organizations';
import type { VerifiedRecord } from '#statistics';
import type { PlannedWork, TimedTasking, WorkCreation, WorkKind } from '#work';
import {
  ANALYST_DOWSING_ENGINE_VERSION,
  AnalystDowsing,
  type DowsingPeople,
} from './analyst-dowsing.js';
import {
  queryCompletedData,
  queryCreatedData,
  queryFailedData,
  DOWSING_IDENTITY,
} from './dowsing-events.js';
import { DowsingQueriesRepository } from './dowsing-queries.repository.js';
import { DowsingReadingsRepository } from './dowsing-readings.repository.js';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

/** A query to ask, and how people are to answer it (absent: the default engine). */
export interface NewDowsingQuery {
  request: DowsingRequest;
  people?: DowsingPeople | undefined;
}

/**
 * Dowsing queries as a kind of work (libs/work's lifecycle): what only they
 * know of it. The simulated engine answers within the request — its answer
 * is computed before the transaction (it is pure computation), and the
 * query is stored answered, with its readings and its completed (or failed)
 * event after the created one. Queries for people are stored `pending` and
 * tasked. The answer rests on the organisation's verified outcomes of the
 * query type when it has any (one indexed statement per query type asked).
 * The API has no cancel for a query, and no plan limit on how many are
 * pending, so the kind describes neither.
 */
@Injectable()
export class DowsingKind implements WorkKind<DowsingQueryEntity> {
  readonly identity = DOWSING_IDENTITY;
  readonly creation: WorkCreation<
    DowsingQueryEntity,
    NewDowsingQuery,
    TimedTasking,
    DowsingEngineOutcome | null
  >;

  constructor(
    readonly table: DowsingQueriesRepository,
    private readonly readings: DowsingReadingsRepository,
    private readonly events: EventLog,
    private readonly engines: EngineRegistry,
    private readonly organizations: OrganizationsService,
    private readonly verified: VerifiedRecords,
    analysts: AnalystDowsing,
  ) {
    this.creation = {
      engineKind: 'dowsing',
      batchKind: 'dowsing',
      batchField: 'queries.',
      beforeTransaction: (tenant, items) => this.answer(tenant, items),
      build: (tenant, item, outcome, context) => this.build(tenant, item, outcome, context),
      createdEvent: (query) => ({ type: 'dowsing.query_created', data: queryCreatedData(query) }),
      people: analysts.creating(),
      answered: (tx, tenant, query, outcome, requestId) =>
        this.recordAnswer(tx, tenant, query, outcome, requestId),
    };
  }

  /** A deleted query's readings go with it (heatmaps and temporal analysis forget it). */
  forgetAlso(tx: Transaction, tenant: Tenant, id: string): Promise<void> {
    return this.readings.deleteOfQuery(tx, tenant, id);
  }

  /** The engine's answers, one per item; null for a query people answer or an engine answers later. */
  private async answer(
    tenant: Tenant,
    items: readonly PlannedWork<NewDowsingQuery, TimedTasking>[],
  ): Promise<(DowsingEngineOutcome | null)[]> {
    const engine = this.engines.dowsing(this.engines.engineFor('dowsing', tenant.mode));
    const inline = engine.answersInline
      ? items.filter((item) => item.people === null).map((item) => item.input.request)
      : [];
    if (inline.length === 0) return items.map(() => null);
    const [orgSeed, records] = await Promise.all([
      this.organizations.engineSeed(tenant.organizationId),
      this.verifiedRecords(tenant, inline),
    ]);
    return Promise.all(
      items.map(({ input: { request }, people }) =>
        people === null
          ? engine.run(request, orgSeed, records.get(request.queryType), tenant.mode)
          : null,
      ),
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

  private build(
    tenant: Tenant,
    { input: { request }, engine, people }: PlannedWork<NewDowsingQuery, TimedTasking>,
    outcome: DowsingEngineOutcome | null,
    { batchId, now }: { batchId: string | null; now: Date },
  ): DowsingQueryEntity {
    return {
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
      engine,
      engineVersion: people ? ANALYST_DOWSING_ENGINE_VERSION : (outcome?.engineVersion ?? null),
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
  }

  /** An answer given in the request: its readings, and the event that announces it. */
  private async recordAnswer(
    tx: Transaction,
    tenant: Tenant,
    query: DowsingQueryEntity,
    outcome: DowsingEngineOutcome | null,
    requestId: string | null,
  ): Promise<void> {
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
  }
}
