import { toPublicId } from '#common';
import type { SessionEntity } from '#database';
import { phaseOf, type NewSession } from '#sessions';
import { completedResults, failureOf, resultsMetadata, resultsV1 } from '../session-mapping.js';
import type { CreateSessionV2Dto } from './create-session-v2.dto.js';
import type { SessionV2Dto } from './session-v2.dto.js';

export function toNewSessionV2(body: CreateSessionV2Dto): NewSession {
  return {
    type: body.type,
    target: body.target,
    modality: body.modality ?? null,
    durationMinutes: body.duration_minutes ?? 30,
    privacyLevel: body.privacy_level ?? 'private',
  };
}

export function toSessionV2(
  session: SessionEntity,
  sketchUrl: (index: number) => string,
): SessionV2Dto {
  const results = completedResults(session);
  return {
    session_id: toPublicId('session', session.id),
    type: session.type,
    status: session.status,
    modality: session.modality,
    duration_minutes: session.durationMinutes,
    privacy_level: session.privacyLevel,
    progress: session.progress,
    current_phase: phaseOf(session),
    results_available: results !== null,
    created_at: session.createdAt.toISOString(),
    estimated_completion: session.estimatedCompletion?.toISOString() ?? null,
    completed_at: session.completedAt?.toISOString() ?? null,
    ...(results && {
      results: {
        ...resultsV1(results, sketchUrl),
        statistical_validation: results.statistical_validation,
        collaborative_insights: results.collaborative_insights,
      },
    }),
    metadata: resultsMetadata(session),
    ...failureOf(session),
  };
}
