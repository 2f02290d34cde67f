import { ID_PREFIXES, toPublicId } from '#common';
import type { DowsingResultData } from '#engines';
import type { DowsingQueryCompletedData, EventDataMap } from '#events';
import { workEventData, type FailedEvent, type TaskedIdentity } from '#work';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

/** The fields every dowsing event names its query by. */
const event = workEventData((query: DowsingQueryEntity) => ({
  query_id: toPublicId('dowsing', query.id),
  query_type: query.queryType,
  variant: query.variant,
}));

export function queryCreatedData(query: DowsingQueryEntity): EventDataMap['dowsing.query_created'] {
  return {
    ...event.base(query, 1),
    question: query.question,
    created_at: query.createdAt.toISOString(),
  };
}

/** The spec's data shape in full; `coordinates` is null unless the answer is a place. */
export function queryCompletedData(
  query: DowsingQueryEntity,
  result: DowsingResultData,
  sequence: number,
): DowsingQueryCompletedData {
  return {
    ...event.base(query, sequence),
    question: query.question,
    answer: result.answer,
    confidence: result.confidence,
    coordinates: result.coordinates ?? null,
    chart_data: result.chart_data,
    completed_at: query.completedAt!.toISOString(),
  };
}

export function queryFailedData(
  query: DowsingQueryEntity,
  sequence: number,
): EventDataMap['dowsing.query_failed'] {
  const failure = {
    reason: query.failureReason!,
    message: query.failureMessage!,
    failedAt: query.completedAt!,
  };
  return event.failed(query, failure, sequence);
}

/** A query's failure event (a deadline passed). */
export const queryFailedEvent: FailedEvent<DowsingQueryEntity> = (query, _failure, sequence) => ({
  type: 'dowsing.query_failed',
  data: queryFailedData(query, sequence),
});

/** Dowsing queries' names and failure event, as every part of the lifecycle reads them (WorkIdentity). */
export const DOWSING_IDENTITY: TaskedIdentity<DowsingQueryEntity> = {
  idPrefix: ID_PREFIXES.dowsing,
  noun: 'dowsing query',
  feature: 'dowsing',
  tasked: 'dowsing',
  eventIdField: 'query_id',
  deletedAction: 'dowsing_query.deleted',
  failedEvent: queryFailedEvent,
};
