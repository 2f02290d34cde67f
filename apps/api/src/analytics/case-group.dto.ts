import { ApiExtraModels, ApiProperty } from '@nestjs/swagger';
import { CASE_TYPES } from '#history';
import { nullableRef } from '../http/nullable-ref.js';
import { RateDto } from '../http/rate.dto.js';

/** A group of history cases as both versions' analytics count them: outcomes and hit rate. */

export class OutcomeCountsDto {
  @ApiProperty({ type: 'integer', description: 'Cases verified a hit' })
  hit!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Cases verified a partial hit (not a hit in rates)',
  })
  partial!: number;

  @ApiProperty({ type: 'integer', description: 'Cases verified a miss' })
  miss!: number;

  @ApiProperty({ type: 'integer', description: 'Cases without a verdict (failed work among them)' })
  unverified!: number;
}

export const HIT_RATE = {
  ...nullableRef(RateDto),
  description:
    'Hits among the verified cases (any verdict; partials are not hits) with a Wilson 95 % interval and the exact binomial p-value against `baseline`: the mean chance baseline of those cases (each case’s own `chance_baseline`, else its kind’s p0: 1/k for sessions and analyses, the query type’s for dowsing). Null when no case is verified.',
};

@ApiExtraModels(RateDto)
export class CaseGroupDto {
  @ApiProperty({ type: 'integer', description: 'Cases in the group' })
  cases!: number;

  @ApiProperty({ type: OutcomeCountsDto })
  outcomes!: OutcomeCountsDto;

  @ApiProperty(HIT_RATE)
  hit_rate!: RateDto | null;
}

export class TypeGroupDto extends CaseGroupDto {
  @ApiProperty({ enum: CASE_TYPES })
  type!: string;
}
