import { toPublicId } from '#common';
import type { DowsingResultData } from '#engines';
import type { DowsingEventBase, DowsingQueryCompletedData, EventDataMap } from '#events';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

/** The data of every dowsing event, built in one place. */
function base(query: DowsingQueryEntity, sequence: number): DowsingEventBase {
  return {
    query_id: toPublicId('dowsing', query.id),
    query_type: query.queryType,
    variant: query.variant,
    sequence,
  };
}

export function queryCreatedData(query: DowsingQueryEntity): EventDataMap['dowsing.query_created'] {
  return { ...base(query, 1), question: query.question, created_at: query.createdAt.toISOString() };
}

/** The spec's data shape in full; `coordinates` is null unless the answer is a place. */
export function queryCompletedData(
  query: DowsingQueryEntity,
  result: DowsingResultData,
  sequence: number,
): DowsingQueryCompletedData {
  return {
    ...base(query, sequence),
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
  return {
    ...base(query, sequence),
    reason: query.failureReason!,
    message: query.failureMessage!,
    failed_at: query.completedAt!.toISOString(),
  };
}
