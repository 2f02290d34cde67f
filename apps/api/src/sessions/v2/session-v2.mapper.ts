import type { SessionEntity } from '#sessions';
import { toPublicId } from '#common';
import type { SessionRequest } from '#sessions';
import {
  completedResults,
  resultsMetadata,
  resultsV1,
  sessionSubject,
} from '../session-mapping.js';
import { toStatusV1 } from '../v1/session-v1.mapper.js';
import type { CreateSessionV2Dto } from './create-session-v2.dto.js';
import type { SessionV2Dto } from './session-v2.dto.js';
import { workPeople } from '../../assignments/work-tasking.dto.js';

/**
 * A v2 create body as the service takes it, in either spelling; the template,
 * if named, is applied there.
 */
export function toSessionRequestV2(body: CreateSessionV2Dto): SessionRequest {
  const { type, target } = sessionSubject(body, { templateNamed: body.template_id !== undefined });
  return {
    templateId: body.template_id,
    type,
    target,
    modality: body.modality,
    durationMinutes: body.duration_minutes,
    privacyLevel: body.privacy_level,
    ...(body.analyst_count !== undefined ? { analystCount: body.analyst_count } : {}),
    people: workPeople(body),
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
    analyst_count: session.analystCount,
    merged_from: session.mergedFrom?.map((uuid) => toPublicId('session', uuid)) ?? null,
  };
}
