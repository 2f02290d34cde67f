import { toPublicId } from '#common';
import type { AnalysisResultsData } from '#engines';
import type { AnalysisCompletedData, AnalysisEventBase, EventDataMap } from '#events';
import { currentStepOf, humanDuration, progressOf } from './analysis-progress.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';

/**
 * The data of every analysis event, built in one place. The description
 * and the reference material stay with the analysis: events name it, its
 * target type and status.
 */
function base(analysis: AnalysisEntity, sequence: number): AnalysisEventBase {
  return {
    analysis_id: toPublicId('analysis', analysis.id),
    target_type: analysis.targetType,
    status: analysis.status,
    sequence,
  };
}

export function analysisCreatedData(analysis: AnalysisEntity): EventDataMap['analysis.created'] {
  return {
    ...base(analysis, 1),
    analysis_type: analysis.analysisType,
    priority: analysis.priority,
    created_at: analysis.createdAt.toISOString(),
    estimated_completion: analysis.estimatedCompletion?.toISOString() ?? null,
  };
}

export function analysisStartedData(
  analysis: AnalysisEntity,
  sequence: number,
): EventDataMap['analysis.started'] {
  return { ...base(analysis, sequence), started_at: analysis.startedAt!.toISOString() };
}

export function analysisProgressData(
  analysis: AnalysisEntity,
  sequence: number,
): EventDataMap['analysis.progress_updated'] {
  return {
    ...base(analysis, sequence),
    progress: progressOf(analysis),
    current_step: currentStepOf(analysis),
  };
}

export function analysisCompletedData(
  analysis: AnalysisEntity,
  results: AnalysisResultsData,
  sequence: number,
): AnalysisCompletedData {
  const processingMs = processingTimeMs(analysis)!;
  return {
    analysis_id: toPublicId('analysis', analysis.id),
    target_type: analysis.targetType,
    status: 'completed',
    confidence_score: results.confidence_score,
    results: {
      summary: results.summary,
      key_findings: results.key_findings,
      risk_assessment: results.risk_assessment,
    },
    processing_time: humanDuration(processingMs),
    processing_time_ms: processingMs,
    completed_at: analysis.completedAt!.toISOString(),
    sequence,
  };
}

export function analysisFailedData(
  analysis: AnalysisEntity,
  reason: string,
  message: string,
  sequence: number,
): EventDataMap['analysis.failed'] {
  return {
    ...base({ ...analysis, status: 'failed' }, sequence),
    reason,
    message,
    failed_at: analysis.completedAt!.toISOString(),
  };
}

/** From start to finish (queueing excluded); null until it finished after starting. */
export function processingTimeMs(analysis: AnalysisEntity): number | null {
  if (!analysis.startedAt || !analysis.completedAt) return null;
  return analysis.completedAt.getTime() - analysis.startedAt.getTime();
}
