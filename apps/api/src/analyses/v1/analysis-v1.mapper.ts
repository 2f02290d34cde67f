import {
  DEFAULT_ANALYSIS_TYPE,
  DEFAULT_PRIORITY,
  humanDuration,
  processingTimeMs,
  progressOf,
  type AnalysisEntity,
  type NewAnalysis,
} from '#analyses';
import { AppError, toPublicId } from '#common';
import type { AnalysisResultsData, AnalysisScoreDetails, EarlierWork } from '#engines';
import type { BatchEntity } from '#work';
import { workPeople } from '../../assignments/work-tasking.dto.js';
import type { AnalysisBatchCreatedV1Dto } from '../../batches/v1/batch-v1.dto.js';
import { toBatchStatusV1 } from '../../batches/v1/batch-v1.mapper.js';
import { failureOf } from '../analysis-mapping.js';
import type {
  AnalysisResultsEnvelopeDto,
  AnalysisSubmittedDto,
  EarlierWorkDto,
} from './analysis-v1.dto.js';
import {
  MAX_URL_LENGTH,
  type SubmitAnalysisBatchDto,
  type SubmitAnalysisDto,
} from './submit-analysis-v1.dto.js';

/**
 * The body of POST /v1/analysis/targets with defaults applied and every
 * reference URL checked, each refusal naming its item
 * (`reference_material.photos.3`). `at` prefixes the field names when the
 * body is an item of a batch (`analyses.2.`).
 */
export function toNewAnalysis(body: SubmitAnalysisDto, at = ''): NewAnalysis {
  const material = body.reference_material ?? {};
  const urls = (kind: 'photos' | 'documents') =>
    (material[kind] ?? []).map((value, i) =>
      referenceUrl(value, `${at}reference_material.${kind}.${i}`),
    );
  const description = body.description ?? null;
  if (description !== null && description.trim() === '') {
    throw AppError.invalid(`${at}description`, 'must not be blank');
  }
  return {
    targetType: body.target_type,
    analysisType: body.analysis_type ?? DEFAULT_ANALYSIS_TYPE,
    priority: body.priority ?? DEFAULT_PRIORITY,
    description,
    referenceMaterial: {
      photos: urls('photos'),
      documents: urls('documents'),
      coordinates: material.coordinates
        ? { latitude: material.coordinates.latitude, longitude: material.coordinates.longitude }
        : null,
    },
    people: {
      ...workPeople(body),
      analystCount: body.analyst_count,
      durationMinutes: body.duration_minutes,
    },
  };
}

/** The items of a batch (POST /v1/analysis/batch or /v1/batch/analysis), each refusal naming its item. */
export function toNewAnalyses(body: SubmitAnalysisBatchDto): NewAnalysis[] {
  return body.analyses.map((item, index) => toNewAnalysis(item, `analyses.${index}.`));
}

/** An absolute https URL of at most MAX_URL_LENGTH characters, without credentials or fragment. */
function referenceUrl(value: unknown, field: string): string {
  if (typeof value !== 'string') throw AppError.invalid(field, 'must be an https URL string');
  if (value.length > MAX_URL_LENGTH) {
    throw AppError.invalid(field, `must be at most ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw AppError.invalid(field, 'must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:') throw AppError.invalid(field, 'must use https://');
  if (url.username || url.password) {
    throw AppError.invalid(
      field,
      'must not contain credentials (they would be stored with the analysis)',
    );
  }
  if (url.hash) throw AppError.invalid(field, 'must not contain a fragment');
  return value;
}

/** What a batch's status counts of an analysis. */
export function toBatchItem(analysis: AnalysisEntity): { status: string; progress: number } {
  return { status: analysis.status, progress: progressOf(analysis) };
}

export function toSubmitted(analysis: AnalysisEntity): AnalysisSubmittedDto {
  return {
    analysis_id: toPublicId('analysis', analysis.id),
    status: analysis.status,
    estimated_completion: analysis.estimatedCompletion!.toISOString(),
    priority: analysis.priority,
    created_at: analysis.createdAt.toISOString(),
  };
}

export function toAnalysisBatchCreated(
  batch: BatchEntity,
  analyses: readonly AnalysisEntity[],
): AnalysisBatchCreatedV1Dto {
  return {
    ...toBatchStatusV1(batch, analyses.map(toBatchItem)),
    analyses: analyses.map(toSubmitted),
  };
}

export function toResults(analysis: AnalysisEntity): AnalysisResultsEnvelopeDto {
  const results =
    analysis.status === 'completed' ? (analysis.results as AnalysisResultsData | null) : null;
  const processing = processingTimeMs(analysis);
  const material = analysis.material ?? [];
  const details = analysis.scoreDetails as AnalysisScoreDetails | null;
  return {
    analysis_id: toPublicId('analysis', analysis.id),
    status: analysis.status,
    ...(results && { results }),
    processing_time: processing === null ? null : humanDuration(processing),
    metadata: {
      engine: analysis.engine,
      engine_version: analysis.engineVersion,
      evidence: analysis.evidence,
      analysis_type: analysis.analysisType,
      material_fetched: material.filter((item) => item.status === 'fetched').length,
      material_failed: material.filter((item) => item.status === 'failed').length,
      earlier_work: ((analysis.earlierWork ?? []) as unknown as EarlierWork[]).map(toEarlierWork),
      ...(details && {
        score_components: {
          material: details.material,
          analyst_agreement: details.analystAgreement,
          judging: details.judging,
          verified: details.verified ?? null,
        },
      }),
    },
    ...failureOf(analysis),
  };
}

function toEarlierWork(work: EarlierWork): EarlierWorkDto {
  return {
    kind: work.kind,
    id: work.id,
    relation: work.relation,
    distance_meters: work.distanceMeters,
    confidence_score: work.confidenceScore,
    completed_at: work.completedAt,
  };
}
