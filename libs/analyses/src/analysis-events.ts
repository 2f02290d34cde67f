import { ID_PREFIXES, toPublicId } from '#common';
import type { AnalysisResultsData } from '#engines';
import type { AnalysisCompletedData, EventDataMap } from '#events';
import { workEventData, type FailedEvent, type TaskedIdentity } from '#work';
import { currentStepOf, humanDuration, progressOf } from './analysis-progress.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';

/**
 * The fields every analysis event names its analysis by. The description
 * and the reference material stay with the analysis: events name it, its
 * target type and status.
 */
const event = workEventData((analysis: AnalysisEntity) => ({
  analysis_id: toPublicId('analysis', analysis.id),
  target_type: analysis.targetType,
  status: analysis.status,
}));

export function analysisCreatedData(analysis: AnalysisEntity): EventDataMap['analysis.created'] {
  return {
    ...event.base(analysis, 1),
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
  return { ...event.base(analysis, sequence), started_at: analysis.startedAt!.toISOString() };
}

export function analysisProgressData(
  analysis: AnalysisEntity,
  sequence: number,
): EventDataMap['analysis.progress_updated'] {
  return {
    ...event.base(analysis, sequence),
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
  const failure = { reason, message, failedAt: analysis.completedAt! };
  return event.failed({ ...analysis, status: 'failed' }, failure, sequence);
}

/** From start to finish (queueing excluded); null until it finished after starting. */
export function processingTimeMs(analysis: AnalysisEntity): number | null {
  if (!analysis.startedAt || !analysis.completedAt) return null;
  return analysis.completedAt.getTime() - analysis.startedAt.getTime();
}

/** An analysis's failure event (a cancellation, a deadline passed). */
export const analysisFailedEvent: FailedEvent<AnalysisEntity> = (analysis, failure, sequence) => ({
  type: 'analysis.failed',
  data: analysisFailedData(analysis, failure.reason, failure.message, sequence),
});

/** Analyses' names and failure event, as every part of the lifecycle reads them (WorkIdentity). */
export const ANALYSIS_IDENTITY: TaskedIdentity<AnalysisEntity> = {
  idPrefix: ID_PREFIXES.analysis,
  noun: 'analysis',
  feature: 'analyses',
  tasked: 'analysis',
  eventIdField: 'analysis_id',
  deletedAction: 'analysis.deleted',
  failedEvent: analysisFailedEvent,
};
