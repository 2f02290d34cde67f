import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';
import { DowsingFiltersDto } from '../dowsing-filters.dto.js';
import { DowsingQueryV1Dto, DowsingResultV1Dto } from '../v1/dowsing-v1.dto.js';

export class SignificanceDto {
  @ApiProperty({
    description:
      'One-sided P(X ≥ hits) by chance: of the verified outcomes (`evidence` `verified`; each case at its own baseline, Poisson-binomial, partials counted as misses), else of the readings (exact binomial against `baseline`)',
  })
  p_value!: number;

  @ApiProperty({ description: 'z / √n (Stouffer’s z over verified cases)' })
  effect_size!: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Verified outcomes the numbers rest on (`evidence` `verified`), else readings (passes, for location_finding) judged',
  })
  sample_size!: number;
}

export class LocationPointDto {
  @ApiProperty()
  lat!: number;

  @ApiProperty()
  lng!: number;
}

export class DowsingLocationDto {
  @ApiProperty({ type: LocationPointDto })
  coordinates!: LocationPointDto;

  @ApiProperty({ minimum: 0, maximum: 1 })
  confidence!: number;

  @ApiProperty({ type: [Number], minItems: 2, maxItems: 2, description: 'Wilson 95 % interval' })
  confidence_interval!: number[];

  @ApiProperty()
  energy_signature!: string;

  @ApiProperty({ type: Number, nullable: true })
  depth_meters!: number | null;

  @ApiProperty({ type: [String] })
  material_composition!: string[];
}

export class DowsingResultV2Dto extends DowsingResultV1Dto {
  @ApiProperty({
    description:
      'The chance rate of a hit of this query: 1/3 for yes/no/neutral, 1/k among k options, the share of the search circle within accuracy for places (what its history case records as its baseline)',
  })
  baseline!: number;

  @ApiProperty({
    type: [Number],
    minItems: 2,
    maxItems: 2,
    description:
      'Wilson 95 % interval of the hit rate (of the verified outcomes, or of the readings)',
  })
  confidence_interval!: number[];

  @ApiProperty({ type: [DowsingLocationDto] })
  locations!: DowsingLocationDto[];

  @ApiProperty({ type: SignificanceDto })
  statistical_significance!: SignificanceDto;
}

export class DowsingQueryV2Dto extends DowsingQueryV1Dto {
  @ApiPropertyOptional({
    type: DowsingResultV2Dto,
    description: 'Present once completed: the later-generation result',
  })
  declare result?: DowsingResultV2Dto;
}

export class DowsingListQueryV2Dto extends IntersectionType(V2ListQueryDto, DowsingFiltersDto) {}

export class DowsingListV2Dto extends V2List(DowsingQueryV2Dto) {}
