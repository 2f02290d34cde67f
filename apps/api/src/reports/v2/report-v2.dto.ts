import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn } from 'class-validator';
import { CASE_TYPES, type CaseType } from '#history';
import {
  REPORT_FORMATS,
  REPORT_STATUSES,
  REPORT_TYPES,
  type ReportFormat,
  type ReportStatus,
  type ReportType,
} from '#reports';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';
import { oneOf } from '../../http/validation-messages.js';

export const REPORT_ID = {
  example: 'rpt_01jx2k9v3sfd8tq4m7n6p5r2wz',
  description: 'The report id',
};
const DATE = {
  message: 'must be an ISO 8601 date (2026-01-31) or date-time (2026-01-31T12:00:00Z)',
};

export class GenerateReportDto {
  @ApiProperty({
    enum: REPORT_TYPES,
    description:
      '`history`: one row per case of your history in the range (classified cases never appear), with counts by type and hit rates. `performance`: hit rates with intervals, SAIC scores and processing times per engine, analyst, type and modality (what GET /v1/analytics/performance answers; over every case, the range is not applied). `usage`: work finished per UTC day and kind, completed and failed, in the range (classified work not counted).',
  })
  @IsIn(REPORT_TYPES, oneOf(REPORT_TYPES))
  report_type!: ReportType;

  @ApiProperty({
    enum: REPORT_FORMATS,
    description:
      "`csv`: RFC 4180, a header row, one row per case (history) or per group (performance: engine, analyst, type, modality; usage: day and kind), cells a spreadsheet would run as a formula prefixed with `'`. `json`: the same data structured (history: the cases with counts and hit rates as rate objects).",
  })
  @IsIn(REPORT_FORMATS, oneOf(REPORT_FORMATS))
  format!: ReportFormat;

  @ApiPropertyOptional({
    example: '2026-01-01',
    description:
      'Cases dated on or after this (ISO 8601 date or date-time; a date means its start, UTC)',
  })
  @Optional()
  @IsDateString({ strict: true }, DATE)
  date_from?: string;

  @ApiPropertyOptional({
    example: '2026-12-31',
    description:
      'Cases dated on or before this (inclusive: a date means its whole day, UTC). Not before date_from.',
  })
  @Optional()
  @IsDateString({ strict: true }, DATE)
  date_to?: string;

  @ApiPropertyOptional({ enum: CASE_TYPES, description: 'Only cases of this type' })
  @Optional()
  @IsIn(CASE_TYPES, oneOf(CASE_TYPES))
  type?: CaseType;
}

export const GENERATE_REPORT_EXAMPLES: RequestExamples = {
  history_csv: {
    summary: 'Every case of 2026 as CSV',
    value: {
      report_type: 'history',
      format: 'csv',
      date_from: '2026-01-01',
      date_to: '2026-12-31',
    },
  },
  history_pdf: {
    summary: 'A PDF for a manager: figures, charts and the newest cases',
    value: { report_type: 'history', format: 'pdf', date_from: '2026-01-01' },
  },
  history_json: {
    summary: 'Remote-viewing cases as JSON, with hit rates',
    value: { report_type: 'history', format: 'json', type: 'remote_viewing' },
  },
};

export class ReportParametersDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Start of the range (inclusive), as an instant',
  })
  date_from!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'End of the range (inclusive), as an instant: a date sent alone means the last millisecond of its day',
  })
  date_to!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The case type filter' })
  type!: string | null;
}

export class ReportLinksDto {
  @ApiProperty({
    description: 'This report',
    example: '/v2/reports/rpt_01jx2k9v3sfd8tq4m7n6p5r2wz',
  })
  self!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The document, once `status` is `completed`; null before',
  })
  download!: string | null;
}

export class ReportDto {
  @ApiProperty(REPORT_ID)
  report_id!: string;

  @ApiProperty({ enum: REPORT_TYPES })
  report_type!: ReportType;

  @ApiProperty({ enum: REPORT_FORMATS })
  format!: ReportFormat;

  @ApiProperty({
    enum: REPORT_STATUSES,
    description: '`queued` → `processing` → `completed` | `failed`',
  })
  status!: ReportStatus;

  @ApiProperty({ type: ReportParametersDto })
  parameters!: ReportParametersDto;

  @ApiProperty({ type: String, nullable: true, description: 'Why a `failed` report failed' })
  failure!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The document's media type, once completed",
  })
  content_type!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The download's file name, once completed",
  })
  filename!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The document's size in bytes, once completed",
  })
  byte_size!: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Rows (cases) in the document, once completed',
  })
  row_count!: number | null;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completed_at!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description:
      'When the report is deleted (REPORT_RETENTION_DAYS after it was asked for); from then on it answers 404',
  })
  expires_at!: string;

  @ApiProperty({ type: ReportLinksDto })
  links!: ReportLinksDto;
}

export class ReportListQueryDto extends V2ListQueryDto {}

export class ReportListDto extends V2List(ReportDto) {}
