import type { SessionEntity } from '#database';
import { toPublicId, type Tenant } from '#common';
import type { NewSession, SessionTemplatesService } from '#sessions';
import {
  sessionOptions,
  completedResults,
  resultsMetadata,
  resultsV1,
} from '../session-mapping.js';
import { toStatusV1 } from '../v1/session-v1.mapper.js';
import type { CreateSessionV2Dto } from './create-session-v2.dto.js';
import type { SessionV2Dto } from './session-v2.dto.js';

/** The session a v2 create body asks for, starting from its template when it names one. */
export async function toNewSessionV2(
  body: CreateSessionV2Dto,
  templates: SessionTemplatesService,
  tenant: Tenant,
): Promise<NewSession> {
  const template =
    body.template_id === undefined
      ? null
      : await templates.resolve(tenant, body.template_id, 'template_id');
  const options = sessionOptions(body);
  return {
    // Validation guarantees a type when no template is named.
    type: body.type ?? template!.type,
    target: body.target,
    modality: body.modality === undefined ? (template?.modality ?? null) : options.modality,
    durationMinutes: body.duration_minutes ?? template?.durationMinutes ?? options.durationMinutes,
    privacyLevel: body.privacy_level ?? template?.privacyLevel ?? options.privacyLevel,
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
