import type { SessionEntity } from '#database';
import type { SessionResultsData } from '#engines';
import type { SessionResultsMetadataV1Dto, SketchV1Dto } from './v1/session-v1.dto.js';

/** Pieces of a session's representation that both versions share. */
export function completedResults(session: SessionEntity): SessionResultsData | null {
  return session.status === 'completed' ? (session.results as SessionResultsData | null) : null;
}

export function sketchesOf(
  results: SessionResultsData,
  sketchUrl: (index: number) => string,
): SketchV1Dto[] {
  return results.sketches.map((sketch) => ({
    url: sketchUrl(sketch.index),
    description: sketch.description,
  }));
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
