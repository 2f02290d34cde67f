import type { SessionEntity } from '#database';
import type { NewSession } from '#sessions';
import {
  sessionOptions,
  completedResults,
  resultsMetadata,
  resultsV1,
} from '../session-mapping.js';
import { toStatusV1 } from '../v1/session-v1.mapper.js';
import type { CreateSessionV2Dto } from './create-session-v2.dto.js';
import type { SessionV2Dto } from './session-v2.dto.js';

export function toNewSessionV2(body: CreateSessionV2Dto): NewSession {
  return {
    type: body.type,
    target: body.target,
    ...sessionOptions(body),
  };
}

export function toSessionV2(
  session: SessionEntity,
  sketchUrl: (index: number) => string,
): SessionV2Dto {
  const results = completedResults(session);
  return {
    ...toStatusV1(session),
    modality: session.modality,
    duration_minutes: session.durationMinutes,
    privacy_level: session.privacyLevel,
    completed_at: session.completedAt?.toISOString() ?? null,
    ...(results && {
      results: {
        ...resultsV1(results, sketchUrl),
        statistical_validation: results.statistical_validation,
        collaborative_insights: results.collaborative_insights,
      },
    }),
    metadata: resultsMetadata(session),
  };
}
