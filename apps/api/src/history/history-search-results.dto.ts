import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CASE_TYPES, VERDICTS } from '#history';

/** What both versions' searches and similar-case lookups answer with, item by item. */

/** Most similar cases one lookup returns, and how many when not told. */
export const MAX_SIMILAR_RESULTS = 50;
export const DEFAULT_SIMILAR_RESULTS = 10;

const POINT = {
  type: 'object' as const,
  required: ['latitude', 'longitude'],
  properties: {
    latitude: { type: 'number' as const, minimum: -90, maximum: 90 },
    longitude: { type: 'number' as const, minimum: -180, maximum: 180 },
  },
};
export const NULLABLE_POINT = { ...POINT, nullable: true };

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
