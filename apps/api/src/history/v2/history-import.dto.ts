import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';
import {
  CASE_TYPES,
  CSV_LIST_SEPARATOR,
  MAX_ANALYSTS,
  MAX_DESCRIPTION_LENGTH,
  MAX_DESCRIPTORS,
  MAX_DURATION_MINUTES,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_OUTCOME_LENGTH,
  MAX_PHASES,
  MAX_REPORTED_ERRORS,
  MAX_TARGET_LENGTH,
  MAX_VERIFICATION_LENGTH,
  PRIVACY_LEVELS,
  VERDICTS,
} from '#history';

const booleanQuery = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

/** Query of POST /v2/history/import. */
export class HistoryImportQueryDto {
  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description:
      'Check and count only: the import runs as it would, in a transaction that is rolled back, so the report (imported, updated, failed, errors) is the one the real import would give, and nothing is stored.',
  })
  @IsOptional()
  @Transform(booleanQuery)
  @IsBoolean({ message: 'must be true or false' })
  dry_run?: boolean;
}

/** A row's problem in the report. */
export class HistoryImportRowErrorDto {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    example: 3,
    description:
      'Line of the file the row starts on, from 1 (a CSV header is line 1; blank lines count)',
  })
  line!: number;

  @ApiProperty({
    example: 'location.latitude',
    description:
      'The field at fault as a dotted path (the CSV column; `analysts.2` for an item of a list), or `row` for the row as a whole (not JSON, wrong number of cells, not storable)',
  })
  field!: string;

  @ApiProperty({ example: 'must be a number from -90 to 90' })
  issue!: string;
}

/** The answer of POST /v2/history/import. */
export class HistoryImportReportDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Rows stored as new cases' })
  imported!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Rows that updated a case: one imported earlier with the same `external_id` (in this organisation and mode), or an earlier row of this file with it (the later row wins)',
  })
  updated!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Rows refused and skipped; each has one or more entries in `errors`',
  })
  failed!: number;

  @ApiProperty({
    type: [HistoryImportRowErrorDto],
    maxItems: MAX_REPORTED_ERRORS,
    description: `Every problem of every refused row, in line order: the first ${MAX_REPORTED_ERRORS} (see \`errors_truncated\`)`,
  })
  errors!: HistoryImportRowErrorDto[];

  @ApiProperty({
    description: `True when there were more than ${MAX_REPORTED_ERRORS} problems and only the first are listed (\`failed\` still counts every refused row)`,
  })
  errors_truncated!: boolean;

  @ApiProperty({ description: 'True for a dry run: nothing was stored' })
  dry_run!: boolean;
}

// --- one row, for the documentation (import-row.ts checks it) ---------------------------------

export class HistoryImportPointDto {
  @ApiProperty({ minimum: -90, maximum: 90, example: 51.5074 })
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180, example: -0.1278 })
  longitude!: number;
}

export class HistoryImportProcessDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_DURATION_MINUTES })
  duration_minutes?: number;

  @ApiPropertyOptional({
    maxLength: MAX_NAME_LENGTH,
    example: 'crv',
    description:
      'How the work was done; for remote viewing, automatic writing and analyses also the case’s subtype, so its verified outcome counts with the service’s own work of that modality (an imported dowsing case has no subtype: the service’s hold the query type)',
  })
  modality?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_PHASES,
    description: `CSV: one cell, items separated by \`${CSV_LIST_SEPARATOR}\``,
  })
  phases?: string[];
}

export class HistoryImportResultsDto {
  @ApiPropertyOptional({ maxLength: MAX_DESCRIPTION_LENGTH })
  description?: string;
}

/**
 * One case of an import: an NDJSON line, or a CSV record whose columns are
 * these fields with nested ones flattened (`location.latitude`).
 */
export class HistoryImportRowDto {
  @ApiProperty({
    minLength: 1,
    maxLength: MAX_EXTERNAL_ID_LENGTH,
    example: 'rv-2019-0001',
    description:
      'Your own id of the case. Importing it again (in the same organisation and mode) updates the case instead of adding one.',
  })
  external_id!: string;

  @ApiProperty({ enum: CASE_TYPES })
  type!: string;

  @ApiProperty({
    example: '2019-05-14T10:30:00Z',
    description:
      'When the work was done, not in the future: an ISO 8601 date (`2019-05-14`, midnight UTC) or date-time with `Z` or an offset (`T` or a space between)',
  })
  date!: string;

  @ApiProperty({ minLength: 1, maxLength: MAX_TARGET_LENGTH })
  target!: string;

  @ApiPropertyOptional({
    maxLength: MAX_OUTCOME_LENGTH,
    description:
      'What really happened, in words (searchable; allowed without a verdict). On a re-import without it, a case that has a verdict keeps its text.',
  })
  outcome?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  confidence_score?: number;

  @ApiPropertyOptional({
    type: HistoryImportPointDto,
    description: 'Where the work pointed: both coordinates or neither',
  })
  location?: HistoryImportPointDto;

  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH })
  client?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_ANALYSTS,
    description: `Each 1 to ${MAX_NAME_LENGTH} characters. CSV: one cell, items separated by \`${CSV_LIST_SEPARATOR}\``,
  })
  analysts?: string[];

  @ApiPropertyOptional({ type: HistoryImportProcessDto })
  process?: HistoryImportProcessDto;

  @ApiPropertyOptional({ type: HistoryImportResultsDto })
  results?: HistoryImportResultsDto;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_DESCRIPTORS,
    description: `Each 1 to ${MAX_NAME_LENGTH} characters. CSV: one cell, items separated by \`${CSV_LIST_SEPARATOR}\``,
  })
  descriptors?: string[];

  @ApiPropertyOptional({
    enum: PRIVACY_LEVELS,
    default: 'public',
    description: '`classified` cases are left out of searches and similar cases',
  })
  privacy_level?: string;

  @ApiPropertyOptional({
    enum: VERDICTS,
    description:
      'The verified outcome: with it, the fields below are recorded (and `verified_by` is required); without it, any of them is an error. A re-import without a verdict keeps the outcome the case has.',
  })
  verdict?: string;

  @ApiPropertyOptional()
  location_found?: boolean;

  @ApiPropertyOptional({
    type: HistoryImportPointDto,
    description: 'Where the target really was',
  })
  coordinates?: HistoryImportPointDto;

  @ApiPropertyOptional({ maxLength: MAX_VERIFICATION_LENGTH })
  verification?: string;

  @ApiPropertyOptional({ default: false })
  independent_verification?: boolean;

  @ApiPropertyOptional({ default: false })
  accuracy_confirmed?: boolean;

  @ApiPropertyOptional({ maxLength: MAX_NAME_LENGTH, description: 'Required with `verdict`' })
  verified_by?: string;

  @ApiPropertyOptional({
    example: '2019-06-01',
    description: 'As `date`; default: the row’s `date`. Not in the future.',
  })
  verified_at?: string;
}

// --- examples: each a body the server accepts as it stands ------------------------------------

const NDJSON_ROWS = [
  {
    external_id: 'rv-2019-0001',
    type: 'remote_viewing',
    date: '2019-05-14T10:30:00Z',
    target: 'Lighthouse at Cape Point',
    confidence_score: 0.7,
    location: { latitude: -34.3568, longitude: 18.4974 },
    analysts: ['analyst-12'],
    process: { duration_minutes: 45, modality: 'crv', phases: ['ideograms', 'sensory'] },
    results: { description: 'Tall white tower on a cliff above the sea' },
    descriptors: ['tall', 'white', 'water'],
    verdict: 'hit',
    location_found: true,
    coordinates: { latitude: -34.3568, longitude: 18.4974 },
    verified_by: 'Field team',
    verified_at: '2019-06-01',
  },
  {
    external_id: 'dw-2020-0042',
    type: 'dowsing',
    date: '2020-08-02',
    target: 'Water source on the north field',
    outcome: 'Borehole found water at 30 m',
    location: { latitude: 52.1, longitude: -1.2 },
  },
];

export const IMPORT_NDJSON_EXAMPLES = {
  cases: {
    summary: 'Two cases, one with a verified outcome',
    value: `${NDJSON_ROWS.map((row) => JSON.stringify(row)).join('\n')}\n`,
  },
};

export const IMPORT_CSV_EXAMPLES = {
  cases: {
    summary: 'Two cases, lists separated by ; and a quoted cell holding a comma',
    value: [
      'external_id,type,date,target,location.latitude,location.longitude,analysts,process.duration_minutes,descriptors,verdict,verified_by',
      'rv-2019-0001,remote_viewing,2019-05-14T10:30:00Z,Lighthouse at Cape Point,-34.3568,18.4974,analyst-12;analyst-7,45,tall;white;water,hit,Field team',
      'an-2021-0007,analysis,2021-03-09,"Photograph of a bridge, a river below",,,,,,,',
      '',
    ].join('\n'),
  },
};
