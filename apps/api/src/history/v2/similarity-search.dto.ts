import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDateString,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { CASE_TYPES, type CaseType } from '#history';
import { PointDto } from '../../dowsing/dowsing-request.dto.js';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';
import { DEFAULT_SIMILAR_RESULTS, MAX_SIMILAR_RESULTS } from '../history-search-results.dto.js';

export const MAX_SIMILARITY_TEXT = 1000;
export const MAX_SIMILARITY_DESCRIPTORS = 50;

export const SIMILARITY_SEARCH_EXAMPLES: RequestExamples = {
  text: {
    summary: 'Free text and descriptors',
    value: { text: 'Tall water tower beside a railway line', descriptors: ['water', 'metal'] },
  },
  place: {
    summary: 'A place and a type',
    value: { coordinates: { latitude: 51.5074, longitude: -0.1278 }, type: 'dowsing', limit: 5 },
  },
};

/** Body of POST /v2/history/similarity-search: at least one of text, descriptors and coordinates. */
export class SimilaritySearchDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_SIMILARITY_TEXT,
    example: 'Tall water tower beside a railway line',
    description: 'Free text compared with case targets (trigrams) and searched in their words',
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_SIMILARITY_TEXT, { message: `must be 1 to ${MAX_SIMILARITY_TEXT} characters` })
  text?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_SIMILARITY_DESCRIPTORS,
    example: ['water', 'metal', 'tall'],
    description: 'Descriptors compared with the cases’ (Jaccard index)',
  })
  @Optional()
  @IsArray({ message: 'must be an array of strings' })
  @ArrayMaxSize(MAX_SIMILARITY_DESCRIPTORS, {
    message: `must have at most ${MAX_SIMILARITY_DESCRIPTORS} items`,
  })
  @IsString({ each: true, message: 'must be an array of strings' })
  @Length(1, 100, { each: true, message: 'each descriptor must be 1 to 100 characters' })
  descriptors?: string[];

  @ApiPropertyOptional({ type: PointDto, description: 'A place: nearer cases are more similar' })
  @Optional()
  @IsObject({ message: 'must be an object with latitude and longitude' })
  @ValidateNested()
  @Type(() => PointDto)
  coordinates?: PointDto;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-06-01T00:00:00Z',
    description: 'A date: cases nearer in time are more similar',
  })
  @Optional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date or date-time' })
  date?: string;

  @ApiPropertyOptional({ enum: CASE_TYPES, description: 'Only cases of this type' })
  @Optional()
  @IsIn(CASE_TYPES, oneOf(CASE_TYPES))
  type?: CaseType;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_SIMILAR_RESULTS,
    default: DEFAULT_SIMILAR_RESULTS,
  })
  @Optional()
  @IsInt({ message: `must be an integer between 1 and ${MAX_SIMILAR_RESULTS}` })
  @Min(1, { message: `must be an integer between 1 and ${MAX_SIMILAR_RESULTS}` })
  @Max(MAX_SIMILAR_RESULTS, { message: `must be an integer between 1 and ${MAX_SIMILAR_RESULTS}` })
  limit?: number;
}
