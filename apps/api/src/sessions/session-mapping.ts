import { AppError, type SessionType } from '#common';
import type { SessionEntity } from '#sessions';
import type { SessionResultsData } from '#engines';
import type { SessionResultsMetadataV1Dto, SessionResultsV1Dto } from './v1/session-v1.dto.js';

/** Pieces of a session's requests and representation that both versions share. */

/** What a create body names the session with, in the spec's spelling or the quick start's. */
export interface SessionSubjectFields {
  type?: SessionType;
  session_type?: SessionType;
  target?: string;
  cue?: string;
}

/**
 * The type and target a create body asks for, in the spec's spelling (`type`,
 * `target`) or the quick start's (`session_type`, `cue`), on every create of
 * both versions. A type is required unless a template gives it (v2). `at`
 * prefixes the field names of errors when the body is an item of a larger
 * request (`sessions.2.`).
 */
export function sessionSubject(
  body: SessionSubjectFields,
  { at = '', templateNamed = false }: { at?: string; templateNamed?: boolean } = {},
): { type: SessionType | undefined; target: string } {
  if (body.target !== undefined && body.cue !== undefined) {
    throw AppError.invalid(`${at}cue`, 'send either target or cue, not both');
  }
  if (
    body.type !== undefined &&
    body.session_type !== undefined &&
    body.type !== body.session_type
  ) {
    throw AppError.invalid(`${at}session_type`, 'send either type or session_type, not both');
  }
  const target = body.target ?? body.cue;
  if (target === undefined || target.trim() === '') {
    throw AppError.invalid(
      `${at}target`,
      target === undefined ? 'is required' : 'must not be blank',
    );
  }
  const type = body.type ?? body.session_type;
  if (type === undefined && !templateNamed) {
    throw AppError.invalid(`${at}type`, 'is required', 'remote_viewing');
  }
  return { type, target };
}
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
