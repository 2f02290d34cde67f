import type { SessionEntity } from '#sessions';
import type { SessionResultsData } from '#engines';
import type { SessionResultsMetadataV1Dto, SessionResultsV1Dto } from './v1/session-v1.dto.js';

/** Pieces of a session's representation that both versions share. */
export function completedResults(session: SessionEntity): SessionResultsData | null {
  return session.status === 'completed' ? (session.results as SessionResultsData | null) : null;
}

/** The results fields of version 1, which version 2 extends. */
export function resultsV1(
  results: SessionResultsData,
  sketchUrl: (index: number) => string,
): SessionResultsV1Dto {
  return {
    coordinates: results.coordinates,
    descriptors: results.descriptors,
    sketches: results.sketches.map((sketch) => ({
      url: sketchUrl(sketch.index),
      description: sketch.description,
    })),
    confidence_score: results.confidence_score,
    validation_metrics: results.validation_metrics,
  };
}

export function resultsMetadata(session: SessionEntity): SessionResultsMetadataV1Dto {
  return {
    duration_minutes: session.durationMinutes,
    modality: session.modality,
    analyst_id: session.analystId,
    engine: session.engine,
    engine_version: session.engineVersion,
    evidence: session.evidence,
  };
}

export function failureOf(session: SessionEntity): { failure_reason?: string } {
  return session.failureReason !== null ? { failure_reason: session.failureReason } : {};
}
