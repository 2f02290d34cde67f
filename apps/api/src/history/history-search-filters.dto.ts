import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsString, Length, Matches } from 'class-validator';
import { CASE_TYPES, RANKED_WINDOW, type CaseType } from '#history';
import { Optional } from '../http/dto-decorators.js';
import { oneOf } from '../http/validation-messages.js';

export const MAX_QUERY_LENGTH = 500;
export const OUTCOME_FILTERS = ['verified', 'unverified'] as const;
const DATE = {
  message: 'must be an ISO 8601 date (2026-01-31) or date-time (2026-01-31T12:00:00Z)',
};
const NUMBER = '-?\\d{1,3}(\\.\\d{1,12})?';
export const LOCATION_PATTERN = new RegExp(`^${NUMBER},${NUMBER},\\d{1,5}(\\.\\d{1,6})?$`);
export const BBOX_PATTERN = new RegExp(`^${NUMBER},${NUMBER},${NUMBER},${NUMBER}$`);

/** The order of both versions' search results, as their operations tell it. */
export const SEARCH_ORDER = `With \`q\`, the newest ${RANKED_WINDOW.toLocaleString('en')} matching cases are ranked by relevance (ts_rank_cd: the target weighs most, then descriptors and outcome, then description; ties newest first) and older matches follow newest first — ranking every match of a common word in a large history would be slow, and recent work is usually what is wanted. Without \`q\`, newest first. Classified cases never appear.`;

/** The filters of a history search, shared by version 1 and version 2. */
export class HistorySearchFiltersDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_QUERY_LENGTH,
    example: 'water tower -bridge',
    description:
      'Search text in web-search syntax over the target, descriptors, outcome and description: words (all must match, English stemming: `towers` finds `tower`), `"quoted phrases"`, `OR` between alternatives, `-word` to exclude. Results are ranked by relevance (see the operation) and carry a highlighted `snippet`.',
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_QUERY_LENGTH, { message: `must be 1 to ${MAX_QUERY_LENGTH} characters` })
  q?: string;

  @ApiPropertyOptional({
    enum: CASE_TYPES,
    description:
      'Cases of one type. `automatic_writing` is our addition to the spec’s enum: automatic-writing sessions are cases too.',
  })
  @Optional()
  @IsIn(CASE_TYPES, oneOf(CASE_TYPES))
  type?: CaseType;

  @ApiPropertyOptional({
    example: '2020-01-01',
    description:
      'Cases dated on or after this (ISO 8601 date or date-time; a date means its start, UTC)',
  })
  @Optional()
  @IsDateString({ strict: true }, DATE)
  date_from?: string;

  @ApiPropertyOptional({
    example: '2026-12-31',
    description:
      'Cases dated on or before this (inclusive: a date means its whole day, UTC; a date-time, that millisecond). Not before date_from.',
  })
  @Optional()
  @IsDateString({ strict: true }, DATE)
  date_to?: string;

  @ApiPropertyOptional({
    example: '51.5074,-0.1278,25',
    pattern: LOCATION_PATTERN.source,
    description:
      '`latitude,longitude,radius_km`: cases whose location lies within radius_km (great-circle distance on the mean Earth sphere, R = 6371.0088 km; 0 < radius_km ≤ 20015). A case’s location is where its target really was once a verified outcome says so, else where the work pointed.',
  })
  @Optional()
  @IsString({ message: 'must be latitude,longitude,radius_km' })
  @Matches(LOCATION_PATTERN, {
    message:
      'must be latitude,longitude,radius_km in decimal degrees and kilometres, e.g. 51.5074,-0.1278,25',
  })
  location?: string;

  @ApiPropertyOptional({
    // Great Britain: it holds the location example's London, so the two examples together
    // (Swagger UI's "Try it out" fills in both) still match cases.
    example: '49.9,-8.2,60.9,1.8',
    pattern: BBOX_PATTERN.source,
    description:
      '`south,west,north,east` in decimal degrees: cases whose location lies in the box (west > east crosses the antimeridian). May be combined with location.',
  })
  @Optional()
  @IsString({ message: 'must be south,west,north,east' })
  @Matches(BBOX_PATTERN, {
    message: 'must be south,west,north,east in decimal degrees, e.g. 49.9,-8.2,60.9,1.8',
  })
  bbox?: string;

  @ApiPropertyOptional({
    enum: OUTCOME_FILTERS,
    description: '`verified`: cases with a recorded outcome (a verdict); `unverified`: the others',
  })
  @Optional()
  @IsIn(OUTCOME_FILTERS, oneOf(OUTCOME_FILTERS))
  outcome?: (typeof OUTCOME_FILTERS)[number];
}
