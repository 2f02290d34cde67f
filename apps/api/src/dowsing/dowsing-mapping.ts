import { toPublicId } from '#common';
import type { DowsingQueryEntity } from '#dowsing';
import type { DowsingResultData } from '#engines';
import type { DowsingFiltersDto } from './dowsing-filters.dto.js';
import type { DowsingMetadataDto, DowsingResultV1Dto } from './v1/dowsing-v1.dto.js';

/** Pieces of a dowsing query's requests and representation that both versions share. */

/** A list query's filters, as the lists service takes them. */
export function toDowsingFilter(query: DowsingFiltersDto) {
  return { queryType: query.query_type, status: query.status, variant: query.variant };
}

/** The result of an answered query; null until then. */
export function completedResult(query: DowsingQueryEntity): DowsingResultData | null {
  return query.status === 'completed'
    ? (query.result as unknown as DowsingResultData | null)
    : null;
}

/** The result fields of version 1, which version 2 extends. */
export function resultV1(result: DowsingResultData): DowsingResultV1Dto {
  return {
    answer: result.answer,
    confidence: result.confidence,
    ...(result.coordinates && { coordinates: result.coordinates }),
    additional_insights: result.additional_insights,
    chart_data: result.chart_data,
    ...(result.variant_result !== null && { variant_result: result.variant_result }),
  };
}

/** Every field of a query but its result, the same in both versions. */
export function queryFields(query: DowsingQueryEntity) {
  const metadata: DowsingMetadataDto = {
    engine: query.engine,
    engine_version: query.engineVersion,
    evidence: query.evidence,
    precision_level: query.precisionLevel,
  };
  return {
    query_id: toPublicId('dowsing', query.id),
    status: query.status,
    variant: query.variant,
    query_type: query.queryType,
    question: query.question,
    created_at: query.createdAt.toISOString(),
    completed_at: query.completedAt?.toISOString() ?? null,
    metadata,
    ...(query.failureReason !== null && {
      failure_reason: query.failureReason,
      ...(query.failureMessage !== null && { failure_message: query.failureMessage }),
    }),
  };
}

/** What a batch's status counts of a query: answered ones are done. */
export function dowsingBatchItem(query: DowsingQueryEntity): { status: string; progress: number } {
  return { status: query.status, progress: query.status === 'pending' ? 0 : 100 };
}
