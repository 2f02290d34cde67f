import type { WorkPeople } from '#analysts';
import { AppError, type Modality, type PrivacyLevel, type SessionType } from '#common';

/** A session to create, every setting decided. */
export interface NewSession {
  type: SessionType;
  target: string;
  modality: Modality | null;
  durationMinutes: number;
  privacyLevel: PrivacyLevel;
  /** Analysts working independently on it; 1 unless collaborative. */
  analystCount?: number;
  /** How a live session asks to be done by people (docs/analysts.md); absent: the default engine. */
  people?: WorkPeople | undefined;
}

/**
 * A session as a create request asks for it: any setting may be left out
 * (`modality` may also be null: no modality), and `templateId` may name a
 * template to start from.
 */
export interface SessionRequest {
  /** Public id of a built-in template or one of the organisation's (`template_id`). */
  templateId?: string | undefined;
  /** Required unless a template is named. */
  type?: SessionType | undefined;
  target: string;
  modality?: Modality | null | undefined;
  durationMinutes?: number | null | undefined;
  privacyLevel?: PrivacyLevel | null | undefined;
  /** Analysts working independently on it; 1 unless collaborative. */
  analystCount?: number | undefined;
  /** How a live session asks to be done by people (docs/analysts.md); absent: the default engine. */
  people?: WorkPeople | undefined;
}

/** The settings of a session that neither its request nor its template gives. */
export const SESSION_DEFAULTS = {
  modality: null,
  durationMinutes: 30,
  privacyLevel: 'private',
} as const satisfies Pick<NewSession, 'modality' | 'durationMinutes' | 'privacyLevel'>;

/**
 * The session a request asks for: each setting as the request gives it, else
 * as its template does, else the default. A modality given as null stays
 * null, whatever the template says.
 */
export function requestedSession(
  request: SessionRequest,
  template: Pick<NewSession, 'type' | 'modality' | 'durationMinutes' | 'privacyLevel'> | null,
): NewSession {
  const type = request.type ?? template?.type;
  // Request validation asks for a type unless a template is named; this only guards the rule.
  if (type === undefined) throw AppError.invalid('type', 'is required', 'remote_viewing');
  return {
    type,
    target: request.target,
    modality:
      request.modality === undefined
        ? (template?.modality ?? SESSION_DEFAULTS.modality)
        : (request.modality ?? SESSION_DEFAULTS.modality),
    durationMinutes:
      request.durationMinutes ?? template?.durationMinutes ?? SESSION_DEFAULTS.durationMinutes,
    privacyLevel: request.privacyLevel ?? template?.privacyLevel ?? SESSION_DEFAULTS.privacyLevel,
    ...(request.analystCount !== undefined ? { analystCount: request.analystCount } : {}),
    ...(request.people !== undefined ? { people: request.people } : {}),
  };
}
