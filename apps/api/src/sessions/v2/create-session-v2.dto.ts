import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { toPublicId } from '#common';
import { BUILT_IN_TEMPLATES } from '#sessions';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { ApiRequiredAlternatives } from '../../http/required-alternatives.js';
import { SESSION_EXAMPLE } from '../session-options.dto.js';
import { QUICK_START_EXAMPLE, SessionSubjectDto } from '../session-subject.dto.js';
import { WithWorkTasking } from '../../assignments/work-tasking.dto.js';

/** The first built-in template ("Standard remote viewing"), which every organisation has. */
const STANDARD_TEMPLATE_ID = toPublicId('sessionTemplate', BUILT_IN_TEMPLATES[0]!.id);

export const CREATE_SESSION_V2_EXAMPLES: RequestExamples = {
  session: SESSION_EXAMPLE,
  quick_start: QUICK_START_EXAMPLE,
  from_template: {
    summary: 'From a built-in template (GET /v2/sessions/templates)',
    value: {
      template_id: STANDARD_TEMPLATE_ID,
      target: 'The object in the sealed envelope #4711',
    },
  },
};

/**
 * Body of POST /v2/sessions/create: the spec's session fields (or the
 * quick-start spelling `cue`, `session_type`), optionally a template to start
 * from, and how people are to do it (docs/analysts.md).
 */
@ApiRequiredAlternatives(['type', 'session_type', 'template_id'], ['target', 'cue'])
export class CreateSessionV2Dto extends WithWorkTasking(SessionSubjectDto) {
  @ApiPropertyOptional({
    example: STANDARD_TEMPLATE_ID,
    description:
      'Start from this template (GET /v2/sessions/templates): its type, modality, duration and privacy apply unless given here. With it, `type` may be left out.',
  })
  @Optional()
  @IsString({ message: 'must be a template id' })
  @MaxLength(64, { message: 'must be a template id' })
  template_id?: string;
}
