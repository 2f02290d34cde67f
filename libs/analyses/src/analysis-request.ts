import type { TimedWorkPeople } from '#analysts';
import { createHash } from 'node:crypto';
import { canonicalJson } from '#common';
import type { AnalysisPriority, AnalysisTargetType, AnalysisType } from '#engines';
import type { ReferenceMaterialRequest } from './entities/analysis.entity.js';

/** What a caller asks for; the HTTP layer has checked the bounds and applied the defaults. */
export interface NewAnalysis {
  targetType: AnalysisTargetType;
  analysisType: AnalysisType;
  priority: AnalysisPriority;
  description: string | null;
  referenceMaterial: ReferenceMaterialRequest;
  /** How a live analysis asks to be done by people; absent: the default engine. */
  people?: AnalysisPeople | undefined;
}

/** The tasking fields of a create request (docs/analysts.md). */
export type AnalysisPeople = TimedWorkPeople;

export const DEFAULT_PRIORITY: AnalysisPriority = 'medium';
export const DEFAULT_ANALYSIS_TYPE: AnalysisType = 'comprehensive';
export const MAX_PHOTOS = 20;
export const MAX_DOCUMENTS = 20;
export const MAX_DESCRIPTION_LENGTH = 1000;

/** Lower-cased with whitespace collapsed: "The  Old Mill" and "the old mill" are the same target. */
export function descriptionKey(description: string | null): string | null {
  if (description === null) return null;
  const key = description.trim().replace(/\s+/g, ' ').toLowerCase();
  return key === '' ? null : key;
}

/**
 * Hex SHA-256 of the canonical request (priority aside: it changes when the
 * work starts, not what it finds). Two analyses with one fingerprint are a
 * resubmission, so neither counts as the other's independent earlier work.
 */
export function requestFingerprint(input: NewAnalysis): string {
  const { photos, documents, coordinates } = input.referenceMaterial;
  return createHash('sha256')
    .update(
      canonicalJson({
        targetType: input.targetType,
        analysisType: input.analysisType,
        description: descriptionKey(input.description),
        photos: [...photos],
        documents: [...documents],
        coordinates: coordinates && {
          latitude: coordinates.latitude,
          longitude: coordinates.longitude,
        },
      }),
    )
    .digest('hex');
}

/** The engine's view of a request, before any work. */
export function requestOf(input: NewAnalysis) {
  return {
    targetType: input.targetType,
    analysisType: input.analysisType,
    description: input.description,
    coordinates: input.referenceMaterial.coordinates,
    photoCount: input.referenceMaterial.photos.length,
    documentCount: input.referenceMaterial.documents.length,
  };
}
