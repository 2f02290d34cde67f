import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { RequestExamples } from '../../http/request-examples.js';
import { CreateSessionV2Dto } from './create-session-v2.dto.js';

export const MAX_COLLABORATIVE_ANALYSTS = 20;
const ANALYST_COUNT_RULE = {
  message: `must be an integer from 2 to ${MAX_COLLABORATIVE_ANALYSTS}`,
};

export const CREATE_COLLABORATIVE_SESSION_EXAMPLES: RequestExamples = {
  three_analysts: {
    summary: 'Three analysts on one target',
    value: {
      type: 'remote_viewing',
      target: 'The object in the sealed envelope #4711',
      analyst_count: 3,
    },
  },
};

/** Body of POST /v2/sessions/collaborative: a v2 create body plus how many analysts work on the target. */
export class CreateCollaborativeSessionV2Dto extends CreateSessionV2Dto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 2,
    maximum: MAX_COLLABORATIVE_ANALYSTS,
    default: 3,
    description:
      'Analysts who work on the one target independently; their contributions are combined (with the simulated engine, this many simulated analysts)',
  })
  @IsOptional()
  @IsInt(ANALYST_COUNT_RULE)
  @Min(2, ANALYST_COUNT_RULE)
  @Max(MAX_COLLABORATIVE_ANALYSTS, ANALYST_COUNT_RULE)
  // Narrows the create body's 1–20 to 2–20 with a default of 3; the initializer only
  // satisfies redeclaring a decorated field (absent stays absent).
  override analyst_count?: number = undefined;
}
