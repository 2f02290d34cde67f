import { toPublicId } from '#common';
import type { SessionEntity } from '#sessions';
import { disclosedTarget, phaseOf, requestedSession, type NewSession } from '#sessions';
import {
  completedResults,
  failureOf,
  resultsMetadata,
  resultsV1,
  sessionSubject,
} from '../session-mapping.js';
import type { CreateSessionV1Dto } from './create-session-v1.dto.js';
import type {
  SessionCreatedV1Dto,
  SessionResultsEnvelopeV1Dto,
  SessionStatusV1Dto,
} from './session-v1.dto.js';

/**
 * The body of POST /v1/sessions, with the quick-start spelling resolved and
 * defaults applied. `at` prefixes the field names of errors when the body is
 * an item of a larger request (`sessions.2.`).
 */
export function toNewSession(body: CreateSessionV1Dto, at = ''): NewSession {
  const { type, target } = sessionSubject(body, { at });
  return requestedSession(
    {
      type,
      target,
      modality: body.modality,
      durationMinutes: body.duration_minutes,
      privacyLevel: body.privacy_level,
    },
    null,
  );
}

export function toCreatedV1(session: SessionEntity): SessionCreatedV1Dto {
  return {
    session_id: toPublicId('session', session.id),
    status: session.status,
    created_at: session.createdAt.toISOString(),
    estimated_completion: session.estimatedCompletion?.toISOString() ?? null,
  };
}

export function toStatusV1(session: SessionEntity): SessionStatusV1Dto {
  return {
    session_id: toPublicId('session', session.id),
    type: session.type,
    target: disclosedTarget(session),
    status: session.status,
    progress: session.progress,
    current_phase: phaseOf(session),
    results_available: session.status === 'completed' && session.results !== null,
    created_at: session.createdAt.toISOString(),
    estimated_completion: session.estimatedCompletion?.toISOString() ?? null,
    ...failureOf(session),
  };
}

export function toResultsV1(
  session: SessionEntity,
  sketchUrl: (index: number) => string,
): SessionResultsEnvelopeV1Dto {
  const results = completedResults(session);
  return {
    session_id: toPublicId('session', session.id),
    status: session.status,
    ...(results && {
      results: resultsV1(results, sketchUrl),
    }),
    metadata: resultsMetadata(session),
    ...failureOf(session),
  };
}
