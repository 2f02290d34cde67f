import {
  currentStepOf,
  humanDuration,
  processingTimeMs,
  progressOf,
  type AnalysisEntity,
  type MaterialItem,
} from '#analyses';
import { toPublicId } from '#common';
import type { AnalysisFiltersDto } from './analysis-filters.dto.js';
import type { AnalysisStatusDto, MaterialItemDto } from './analysis-status.dto.js';

/** Pieces of an analysis's requests and representation that both versions share. */

/** A list query's filters, as the lists service takes them. */
export function toAnalysisFilter(query: AnalysisFiltersDto) {
  return { status: query.status, targetType: query.target_type, priority: query.priority };
}

export function toStatus(analysis: AnalysisEntity): AnalysisStatusDto {
  const processing = processingTimeMs(analysis);
  return {
    analysis_id: toPublicId('analysis', analysis.id),
    target_type: analysis.targetType,
    analysis_type: analysis.analysisType,
    priority: analysis.priority,
    description: analysis.description,
    status: analysis.status,
    progress: progressOf(analysis),
    current_step: currentStepOf(analysis),
    results_available: analysis.status === 'completed' && analysis.results !== null,
    reference_material: {
      coordinates: analysis.referenceMaterial.coordinates,
      items: materialItems(analysis),
    },
    confidence_score: analysis.confidenceScore,
    created_at: analysis.createdAt.toISOString(),
    started_at: analysis.startedAt?.toISOString() ?? null,
    completed_at: analysis.completedAt?.toISOString() ?? null,
    estimated_completion: analysis.estimatedCompletion?.toISOString() ?? null,
    processing_time: processing === null ? null : humanDuration(processing),
    batch_id: analysis.batchId === null ? null : toPublicId('batch', analysis.batchId),
    ...failureOf(analysis),
  };
}

/** The stored items once fetched; before that, what was submitted, `pending`. */
function materialItems(analysis: AnalysisEntity): MaterialItemDto[] {
  if (analysis.material !== null)
    return analysis.material.map((item: MaterialItem) => ({ ...item }));
  const pending = (url: string, kind: 'photo' | 'document'): MaterialItemDto => ({
    url,
    kind,
    status: 'pending',
    error: null,
    sha256: null,
    size_bytes: null,
    content_type: null,
  });
  return [
    ...analysis.referenceMaterial.photos.map((url) => pending(url, 'photo')),
    ...analysis.referenceMaterial.documents.map((url) => pending(url, 'document')),
  ];
}

export function failureOf(analysis: AnalysisEntity): {
  failure_reason?: string;
  failure_message?: string;
} {
  return analysis.failureReason === null
    ? {}
    : {
        failure_reason: analysis.failureReason,
        ...(analysis.failureMessage !== null && { failure_message: analysis.failureMessage }),
      };
}
