import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CASE_TYPES, VERDICTS } from '#history';
import { V1List } from '../http/v1-list.dto.js';
import { V2List } from '../http/v2-list.js';

const POINT = {
  type: 'object' as const,
  required: ['latitude', 'longitude'],
  properties: {
    latitude: { type: 'number' as const, minimum: -90, maximum: 90 },
    longitude: { type: 'number' as const, minimum: -180, maximum: 180 },
  },
};
const NULLABLE_POINT = { ...POINT, nullable: true };

/** One case in a search (the spec's search item, with our additions marked). */
export class HistorySearchItemDto {
  @ApiProperty({ example: 'hist_01jh2x7v4ke8rbk3a8y0v0d7qz', description: 'The case id' })
  id!: string;

  @ApiProperty({ enum: CASE_TYPES })
  type!: string;

  @ApiProperty({
    format: 'date-time',
    description: 'When the work finished (or, imported, the date given)',
  })
  date!: string;

  @ApiProperty()
  target!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'What really happened; null until an outcome is recorded',
  })
  outcome!: string | null;

  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 1 })
  confidence_score!: number | null;

  @ApiProperty({
    ...NULLABLE_POINT,
    description:
      'Where the target really was once verified, else where the work pointed; null when neither is known',
  })
  location!: { latitude: number; longitude: number } | null;

  @ApiProperty({
    type: String,
    enum: [...VERDICTS, null],
    nullable: true,
    description: 'Our addition: the verified outcome’s verdict; null until verified',
  })
  verdict!: string | null;

  @ApiPropertyOptional({
    description:
      'Our addition, only with `q`: an excerpt of the case’s text (target — descriptors — outcome — description; all of it when short) with the matched words in `<mark>…</mark>`; everything else is HTML-escaped, so it can be inserted into a page as is',
    example: 'Tall <mark>water</mark> tower beside a rail line — cold, metal',
  })
  snippet?: string;

  @ApiPropertyOptional({
    minimum: 0,
    description:
      'Our addition, only with `q`: ts_rank_cd of the match (cover density; target weighs most, then descriptors and outcome, then description)',
  })
  relevance?: number;
}

export class HistorySearchV1Dto extends V1List(HistorySearchItemDto) {
  @ApiProperty({
    description:
      'Our addition: true when more than 1,000 cases match and `total` is PostgreSQL’s estimate rather than a count',
  })
  total_estimated!: boolean;
}

export class HistorySearchV2Dto extends V2List(HistorySearchItemDto) {}

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

export class SimilarityComponentsDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: 'Trigram similarity of the targets',
  })
  text!: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: 'Jaccard index of the descriptor sets',
  })
  descriptors!: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: 'exp(−km apart / 100)',
  })
  distance!: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: 'exp(−days apart / 365)',
  })
  time!: number | null;
}

export class SimilarCaseDto extends HistorySearchItemDto {
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      'Weighted mean of the components that both sides have (text 0.4, descriptors 0.3, distance 0.2, time 0.1; a missing one is left out and the rest scale up)',
  })
  similarity!: number;

  @ApiProperty({ type: SimilarityComponentsDto })
  similarity_components!: SimilarityComponentsDto;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Great-circle km between the two locations',
  })
  distance_km!: number | null;
}

export class SimilarCasesDto {
  @ApiProperty({ type: [SimilarCaseDto], description: 'Most similar first' })
  results!: SimilarCaseDto[];
}
