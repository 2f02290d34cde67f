import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';
import { CASE_TYPES, VERDICTS, type CaseType } from '#history';
import { Optional } from '../../http/dto-decorators.js';
import { IntegerQuery } from '../../http/query-params.js';
import { V1List, V1ListQueryDto } from '../../http/v1-list.dto.js';
import { oneOf } from '../../http/validation-messages.js';
import { HistorySearchFiltersDto } from '../history-search-filters.dto.js';
import {
  DEFAULT_SIMILAR_RESULTS,
  HistorySearchItemDto,
  MAX_SIMILAR_RESULTS,
  NULLABLE_POINT,
} from '../history-search-results.dto.js';

export const CASE_ID_EXAMPLE = 'hist_01jh2x7v4ke8rbk3a8y0v0d7qz';

export class HistorySearchQueryV1Dto extends IntersectionType(
  V1ListQueryDto,
  HistorySearchFiltersDto,
) {}

export class HistorySearchV1Dto extends V1List(HistorySearchItemDto) {
  @ApiProperty({
    description:
      'Our addition: true when more than 1,000 cases match and `total` is PostgreSQL’s estimate rather than a count',
  })
  total_estimated!: boolean;
}

export class CaseProcessDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'A session’s duration_minutes; for an analysis or dowsing query, whole minutes from submission to its end',
  })
  duration_minutes!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'A session’s modality, an analysis’s analysis_type, a dowsing query’s chart',
  })
  modality!: string | null;

  @ApiProperty({ type: [String], description: 'The phases or steps the work went through' })
  phases!: string[];
}

export class CaseResultsDto {
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'From the verified outcome; null until one is recorded',
  })
  location_found!: boolean | null;

  @ApiProperty({
    ...NULLABLE_POINT,
    description: 'Where the work pointed; null when it gave no place',
  })
  coordinates!: { latitude: number; longitude: number } | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'What came back: a session’s sketch descriptions, an analysis’s summary, a dowsing answer (for failed work, why it failed)',
  })
  description!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'How the outcome was verified (from the outcome); null until one is recorded',
  })
  verification!: string | null;
}

export class CaseValidationDto {
  @ApiProperty({ description: 'Someone other than the team confirmed the outcome' })
  independent_verification!: boolean;

  @ApiProperty({ description: 'The accuracy of the work was confirmed against the outcome' })
  accuracy_confirmed!: boolean;
}

export class SimilarCasesQueryDto {
  @ApiProperty({ example: CASE_ID_EXAMPLE, description: 'The case to compare others with' })
  @IsString({ message: 'must be a case id (hist_…)' })
  @Matches(/^hist_[0-9a-z]{26}$/, { message: 'must be a case id (hist_…)' })
  case_id!: string;

  @IntegerQuery({ minimum: 1, maximum: MAX_SIMILAR_RESULTS, default: DEFAULT_SIMILAR_RESULTS })
  limit?: number;

  @ApiPropertyOptional({ enum: CASE_TYPES, description: 'Only cases of this type' })
  @Optional()
  @IsIn(CASE_TYPES, oneOf(CASE_TYPES))
  type?: CaseType;
}

/** The spec's case detail, with our additions after `validation`. */
export class HistoryCaseDto {
  @ApiProperty({ example: 'hist_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  case_id!: string;

  @ApiProperty({ enum: CASE_TYPES })
  type!: string;

  @ApiProperty({ format: 'date-time' })
  date!: string;

  @ApiProperty()
  target!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Who the work was for: given on import; null for the service’s own work',
  })
  client!: string | null;

  @ApiProperty({
    type: [String],
    description: 'The analysts who did the work (simulated ones in the sandbox)',
  })
  analysts!: string[];

  @ApiProperty({ type: CaseProcessDto })
  process!: CaseProcessDto;

  @ApiProperty({ type: CaseResultsDto })
  results!: CaseResultsDto;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'What really happened; null until recorded',
  })
  outcome!: string | null;

  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 1 })
  confidence_score!: number | null;

  @ApiProperty({ type: CaseValidationDto })
  validation!: CaseValidationDto;

  @ApiProperty({
    enum: ['completed', 'failed'],
    description: 'Our addition: how the work ended (a failed case has nothing to verify)',
  })
  status!: string;

  @ApiProperty({ type: [String], description: 'Our addition: the descriptors the work reported' })
  descriptors!: string[];

  @ApiProperty({
    ...NULLABLE_POINT,
    description: 'Our addition: the case’s location, as in search items',
  })
  location!: { latitude: number; longitude: number } | null;

  @ApiProperty({
    type: String,
    enum: [...VERDICTS, null],
    nullable: true,
    description: 'Our addition: hit, partial or miss, once verified — what hit rates count',
  })
  verdict!: string | null;

  @ApiProperty({
    ...NULLABLE_POINT,
    description: 'Our addition: where the target really was, once verified',
  })
  verified_coordinates!: { latitude: number; longitude: number } | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'Our addition: great-circle km between where the work pointed and where the target really was, when both are known',
  })
  error_distance_km!: number | null;

  @ApiProperty({ type: String, nullable: true })
  verified_by!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  verified_at!: string | null;

  @ApiProperty({
    type: 'object',
    nullable: true,
    required: ['type', 'id'],
    properties: {
      type: { type: 'string', enum: ['session', 'analysis', 'dowsing_query'] },
      id: { type: 'string', example: 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz' },
    },
    description:
      'Our addition: the work this case records (deleting it deletes the case); null for an imported case',
  })
  source!: { type: string; id: string } | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Our addition: the id given on import',
  })
  external_id!: string | null;

  @ApiProperty({
    description:
      'Our addition: the work was classified. Its case is yours to read here, but never appears in search results, snippets, similar cases, analytics or exports.',
  })
  classified!: boolean;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}
