import type { Type } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsString,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { DEFAULT_DECOY_COUNT, MAX_DECOY_COUNT, MAX_TASKED_ANALYSTS } from '#analysts';
import { Optional } from '../http/dto-decorators.js';
import { oneOf } from '../http/validation-messages.js';

const ENGINES = ['simulated', 'analyst'] as const;
const ANALYSTS_RULE = { message: `must be an integer from 1 to ${MAX_TASKED_ANALYSTS}` };
const DECOYS_RULE = { message: `must be an integer from 1 to ${MAX_DECOY_COUNT}` };

/** What people are asked to do, as a create request says it. */
export interface WorkTaskingFields {
  engine?: 'simulated' | 'analyst';
  analyst_count?: number;
  analyst_ids?: string[];
  judging?: boolean;
  decoy_count?: number;
  target_id?: string;
}

/**
 * The fields with which live work asks to be done by the organisation's
 * analysts (docs/analysts.md), added to a create body's class.
 */
export function WithWorkTasking<T extends Type<object>>(Base: T) {
  class WorkTasking extends Base implements WorkTaskingFields {
    @ApiPropertyOptional({
      enum: ENGINES,
      description:
        "Who does the work in live mode: `analyst` tasks it blind to your organisation's analysts, `simulated` runs the simulator. Default: `analyst` when your organisation has an active analyst, else `simulated`. Test mode is always `simulated` (the field is accepted and ignored).",
    })
    @Optional()
    @IsIn(ENGINES, oneOf(ENGINES))
    engine?: 'simulated' | 'analyst';

    @ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_TASKED_ANALYSTS,
      default: 1,
      description:
        'Analysts who work on it independently (the `analyst` engine picks the least loaded, never one person twice)',
    })
    @Optional()
    @IsInt(ANALYSTS_RULE)
    @Min(1, ANALYSTS_RULE)
    @Max(MAX_TASKED_ANALYSTS, ANALYSTS_RULE)
    analyst_count?: number;

    @ApiPropertyOptional({
      type: [String],
      maxItems: MAX_TASKED_ANALYSTS,
      example: ['analyst_01jh2x7v4ke8rbk3a8y0v0d7qz'],
      description:
        'Analysts (GET /v2/analysts) to give it to; up to `analyst_count`, the rest are picked. Only with the `analyst` engine.',
    })
    @Optional()
    @IsArray({ message: 'must be an array of analyst ids' })
    @ArrayMaxSize(MAX_TASKED_ANALYSTS, { message: `must name at most ${MAX_TASKED_ANALYSTS}` })
    @IsString({ each: true, message: 'must be analyst ids (analyst_…)' })
    analyst_ids?: string[];

    @ApiPropertyOptional({
      default: false,
      description:
        'Judge the work blind once it completes: a judge who did not work on it ranks the true target among `decoy_count` decoys from your target pool (POST /v2/targets); judged trials form the analysts’ track records',
    })
    @Optional()
    @IsBoolean({ message: 'must be true or false' })
    judging?: boolean;

    @ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_DECOY_COUNT,
      default: DEFAULT_DECOY_COUNT,
      description:
        'Decoys beside the true target in the judging set: chance is 1/(decoy_count + 1)',
    })
    @Optional()
    @IsInt(DECOYS_RULE)
    @Min(1, DECOYS_RULE)
    @Max(MAX_DECOY_COUNT, DECOYS_RULE)
    decoy_count?: number;

    @ApiPropertyOptional({
      example: 'tgt_01jh2x7v4ke8rbk3a8y0v0d7qz',
      description:
        'A target of your pool the work is about: its descriptors, coordinates and photos are the truth judging compares with (SAIC scores need its descriptors). Never shown to the analysts.',
    })
    @Optional()
    @IsString({ message: 'must be a target id (tgt_…)' })
    @Matches(/^tgt_[0-9a-z]{26}$/, { message: 'must be a target id (tgt_…)' })
    target_id?: string;
  }
  return WorkTasking;
}

/** The service's form of the fields, for any kind of work. */
export function workPeople(body: WorkTaskingFields) {
  return {
    engine: body.engine,
    analystIds: body.analyst_ids,
    judging: body.judging,
    decoyCount: body.decoy_count,
    targetId: body.target_id,
  };
}
