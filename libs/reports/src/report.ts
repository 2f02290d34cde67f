import type { Readable } from 'node:stream';
import type { Mode } from '#common';

export const REPORT_TYPES = ['history', 'performance', 'usage'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
/** The types the worker builds today; the others are refused with 400 naming `report_type`. */
export const BUILT_REPORT_TYPES: readonly ReportType[] = ['history', 'performance', 'usage'];

export const REPORT_FORMATS = ['json', 'csv', 'pdf'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
/** The formats the worker builds today; the others are refused with 400 naming `format`. */
export const BUILT_REPORT_FORMATS: readonly ReportFormat[] = ['json', 'csv', 'pdf'];

export const REPORT_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export const CONTENT_TYPES: Record<ReportFormat, string> = {
  json: 'application/json',
  csv: 'text/csv; charset=utf-8',
  pdf: 'application/pdf',
};

/** What the caller asked for, stored with the report. */
export interface ReportParameters {
  /** ISO dates (inclusive bounds on the case's date), or null for open. */
  dateFrom: string | null;
  dateTo: string | null;
  /** Case type filter of the history report. */
  type: string | null;
  /** A fixed creation date the document states (tests, golden files); absent: the build's time. */
  generatedAt?: string;
}

/** A report without its content. */
export interface Report {
  id: string;
  organizationId: string;
  mode: Mode;
  reportType: ReportType;
  format: ReportFormat;
  parameters: ReportParameters;
  status: ReportStatus;
  failure: string | null;
  contentType: string | null;
  filename: string | null;
  byteSize: number | null;
  rowCount: number | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  expiresAt: Date;
}

export interface ReportContent {
  /** The document, read from PostgreSQL piece by piece as it is sent. */
  content: Readable;
  byteSize: number;
  contentType: string;
  filename: string;
}
