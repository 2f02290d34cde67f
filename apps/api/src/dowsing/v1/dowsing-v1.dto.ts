import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  getSchemaPath,
  IntersectionType,
} from '@nestjs/swagger';
import { DOWSING_STATUSES } from '#dowsing';
import { CHART_TYPES, DOWSING_QUERY_TYPES, DOWSING_VARIANTS, PRECISION_LEVELS } from '#engines';
import { V1List, V1ListQueryDto } from '../../http/v1-list.dto.js';
import { DowsingFiltersDto } from '../dowsing-filters.dto.js';
import { VARIANT_RESULT_DTOS } from './variant-result-v1.dto.js';

export const QUERY_ID = {
  example: 'dowse_01jh2x7v4ke8rbk3a8y0v0d7qz',
  pattern: '^dowse_[0-9a-z]{26}$',
};

export class AnswerCoordinatesDto {
  @ApiProperty({ minimum: -90, maximum: 90 })
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180 })
  longitude!: number;

  @ApiProperty({ description: 'From the precision level and the search radius' })
  accuracy_meters!: number;
}

export class ChartDataDto {
  @ApiProperty({ enum: CHART_TYPES })
  chart_type!: string;

  @ApiProperty({ type: [Number], description: 'The readings taken, each in [0, 1]' })
  readings!: number[];

  @ApiProperty({ description: 'What the readings say, against the chance baseline' })
  interpretation!: string;
}

@ApiExtraModels(...VARIANT_RESULT_DTOS)
export class DowsingResultV1Dto {
  @ApiProperty({
    description:
      '`positive`, `negative` or `neutral` for yes_no; a value otherwise (an option, a place name, a material, "12.5 m"…)',
  })
  answer!: string;

  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      'Calibrated hit rate, (hits + 2·p0)/(n + 2): of your organisation’s verified outcomes of this query type when there are any (`metadata.evidence` `verified`, p0 their mean baseline), else of the readings (`prior`); the chance baseline p0 when nothing is known',
  })
  confidence!: number;

  @ApiPropertyOptional({ type: AnswerCoordinatesDto, description: 'For location answers' })
  coordinates?: AnswerCoordinatesDto;

  @ApiProperty({ type: [String], description: 'What was computed, in sentences' })
  additional_insights!: string[];

  @ApiProperty({ type: ChartDataDto })
  chart_data!: ChartDataDto;

  @ApiPropertyOptional({
    anyOf: VARIANT_RESULT_DTOS.map((dto) => ({ $ref: getSchemaPath(dto) })),
    description:
      "The variant's own answer (absent for the plain query): multi_point `points` and `strongest`; energy_map `grid` and `strongest_cell`; depth_analysis `depth_meters` and `depth_interval_meters`; material_identification ranked `candidates`; chart_analysis `chosen_option` and `option_strengths`; location_finding place `candidates`; energy_detection `signal_strength`, `energy_signature`, `window`",
  })
  variant_result?: Record<string, unknown>;
}

export class DowsingMetadataDto {
  @ApiProperty({ enum: ['simulated', 'analyst'] })
  engine!: string;

  @ApiProperty({ type: String, nullable: true })
  engine_version!: string | null;

  @ApiProperty({
    type: String,
    enum: ['verified', 'track_record', 'prior', null],
    nullable: true,
    description:
      'Best evidence the numbers rest on (null until answered): `verified` when your organisation has verified outcomes of this query type (up to the 10,000 most recent), else `prior`, the chance prior and the readings',
  })
  evidence!: string | null;

  @ApiProperty({ enum: PRECISION_LEVELS })
  precision_level!: string;
}

export class DowsingQueryV1Dto {
  @ApiProperty(QUERY_ID)
  query_id!: string;

  @ApiProperty({
    enum: DOWSING_STATUSES,
    description:
      '`completed` (or `failed`) when answered within the request (201); `pending` while analysts answer it (202; the `analyst` engine), then `completed` or `failed`',
  })
  status!: string;

  @ApiProperty({ enum: DOWSING_VARIANTS, description: '`query`, or the v1 variant that asked it' })
  variant!: string;

  @ApiProperty({ enum: DOWSING_QUERY_TYPES })
  query_type!: string;

  @ApiProperty()
  question!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completed_at!: string | null;

  @ApiPropertyOptional({ type: DowsingResultV1Dto, description: 'Present once completed' })
  result?: DowsingResultV1Dto;

  @ApiProperty({ type: DowsingMetadataDto })
  metadata!: DowsingMetadataDto;

  @ApiPropertyOptional({ description: 'Present when failed' })
  failure_reason?: string;

  @ApiPropertyOptional({ description: 'Present when failed' })
  failure_message?: string;
}

export class DowsingListQueryV1Dto extends IntersectionType(V1ListQueryDto, DowsingFiltersDto) {}

export class DowsingListV1Dto extends V1List(DowsingQueryV1Dto) {}
