import { toPublicId } from '#common';
import type { DowsingQueryEntity } from '#dowsing';
import type { DowsingResultData } from '#engines';
import type {
  DowsingMetadataDto,
  DowsingQueryV1Dto,
  DowsingQueryV2Dto,
  DowsingResultV1Dto,
} from './dowsing-response.dto.js';

/** A query as v1 shows it: the spec's result fields and the variant's own answer. */
export function toQueryV1(query: DowsingQueryEntity): DowsingQueryV1Dto {
  const result = resultOf(query);
  return {
    ...common(query),
    ...(result && { result: resultV1(result) }),
  };
}

/** A query as v2 shows it: the later-generation result (locations, statistical_significance). */
export function toQueryV2(query: DowsingQueryEntity): DowsingQueryV2Dto {
  const result = resultOf(query);
  return {
    ...common(query),
    ...(result && {
      result: {
        ...resultV1(result),
        baseline: result.baseline,
        confidence_interval: result.confidence_interval,
        locations: result.locations,
        statistical_significance: result.statistical_significance,
      },
    }),
  };
}

function resultOf(query: DowsingQueryEntity): DowsingResultData | null {
  return query.status === 'completed'
    ? (query.result as unknown as DowsingResultData | null)
    : null;
}

function resultV1(result: DowsingResultData): DowsingResultV1Dto {
  return {
    answer: result.answer,
    confidence: result.confidence,
    ...(result.coordinates && { coordinates: result.coordinates }),
    additional_insights: result.additional_insights,
    chart_data: result.chart_data,
    ...(result.variant_result !== null && { variant_result: result.variant_result }),
  };
}

function common(query: DowsingQueryEntity) {
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
