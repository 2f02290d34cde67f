import type { RequestExamples } from '../../http/request-examples.js';
import { SESSION_EXAMPLE } from '../session-options.dto.js';
import { QUICK_START_EXAMPLE, SessionSubjectDto } from '../session-subject.dto.js';

export const CREATE_SESSION_V1_EXAMPLES: RequestExamples = {
  session: SESSION_EXAMPLE,
  quick_start: QUICK_START_EXAMPLE,
};

/**
 * Body of POST /v1/sessions. The quick-start spelling (`cue`, `session_type`)
 * is accepted in place of `target` and `type`.
 */
export class CreateSessionV1Dto extends SessionSubjectDto {}
