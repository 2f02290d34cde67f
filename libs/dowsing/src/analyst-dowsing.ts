import { Injectable } from '@nestjs/common';
import { combineSubmissions, pooledTrials, type TimedWorkPeople } from '#analysts';
import type { Tenant } from '#common';
import type { JsonObject, Transaction } from '#database';
import { DOWSING_DEFAULT_BASELINE, type DowsingVariantInput } from '#engines';
import { EventLog } from '#events';
import type { VerifiedRecordQuery } from '#history';
import {
  AnalystLifecycle,
  type BlindBrief,
  type CompletionInputs,
  TimedAnalystKindService,
} from '#work';
import { dowsingAnswerFrom, forCombining } from './analyst-answer.js';
import { DOWSING_IDENTITY, queryCompletedData } from './dowsing-events.js';
import { DowsingQueriesRepository } from './dowsing-queries.repository.js';
import { DowsingReadingsRepository } from './dowsing-readings.repository.js';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

/** The version the `analyst` engine records with its answers. */
export const ANALYST_DOWSING_ENGINE_VERSION = 'analyst-1';

/** Minutes analysts have for a dowsing query unless the request says (`duration_minutes`). */
export const DEFAULT_DOWSING_DURATION_MINUTES = 60;

/** How a live query asks to be done by people (the create request's tasking fields). */
export type DowsingPeople = TimedWorkPeople;

/**
 * Dowsing queries answered by people (the `analyst` engine,
 * docs/analysts.md), a kind of AnalystLifecycle: a query is `pending` from
 * its creation, tasked blind (the target is the question; its area, points,
 * options and parameters are never shown), and answered from the
 * submissions; it announces no progress.
 */
@Injectable()
export class AnalystDowsing extends TimedAnalystKindService<DowsingQueryEntity> {
  readonly identity = DOWSING_IDENTITY;
  readonly submittable = ['pending'];
  readonly open = ['pending'];
  readonly completedLog = { idKey: 'queryId', message: 'analyst dowsing query answered' };
  readonly defaultMinutes = DEFAULT_DOWSING_DURATION_MINUTES;

  constructor(
    private readonly queries: DowsingQueriesRepository,
    private readonly readings: DowsingReadingsRepository,
    private readonly events: EventLog,
    lifecycle: AnalystLifecycle,
  ) {
    super(lifecycle, queries);
  }

  /** `question_type` is the query type. */
  brief(query: DowsingQueryEntity): BlindBrief {
    return { target: query.question, modality: null, questionType: query.queryType };
  }

  verified(query: DowsingQueryEntity): VerifiedRecordQuery {
    return {
      type: 'dowsing',
      subtypes: [query.queryType],
      defaultP0: DOWSING_DEFAULT_BASELINE[query.queryType],
    };
  }

  async recordCompletion(
    tx: Transaction,
    tenant: Tenant,
    query: DowsingQueryEntity,
    { submissions, forCombining: answers, records, p0, verified }: CompletionInputs,
    sequence: number,
    requestId: string | null,
  ): Promise<void> {
    const input = query.input as unknown as DowsingVariantInput;
    const combining = forCombining(query.queryType, input, answers);
    const combined = combineSubmissions(combining, records, p0, verified);
    const result = dowsingAnswerFrom(
      { queryType: query.queryType, input },
      combining,
      combined,
      pooledTrials(records, p0),
    );
    const completedAt = new Date();
    await this.queries.markCompleted(tx, tenant, query.id, {
      result,
      confidence: result.confidence,
      evidence: combined.evidence,
      engineVersion: ANALYST_DOWSING_ENGINE_VERSION,
      completedAt,
      sequence,
    });
    const completed: DowsingQueryEntity = {
      ...query,
      status: 'completed',
      result: result as unknown as JsonObject,
      completedAt,
    };
    const located = submissions.filter((s) => s.latitude !== null && s.longitude !== null);
    if (query.queryType === 'location') {
      // Each analyst's point is a reading (heatmaps, temporal analysis), at their own confidence.
      await this.readings.insertMany(
        tx,
        tenant,
        query,
        located.map((s) => ({
          latitude: s.latitude!,
          longitude: s.longitude!,
          confidence: s.confidence ?? result.confidence,
        })),
      );
    }
    await this.events.append(
      tx,
      tenant,
      'dowsing.query_completed',
      queryCompletedData(completed, result, sequence),
      requestId,
    );
  }
}
