import { rowMapping } from '#database';
import type { Report } from './report.js';

/** The columns of `reports` but `content`, each with the field it maps to. */
const FIELDS = {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  report_type: 'reportType',
  format: 'format',
  parameters: 'parameters',
  status: 'status',
  failure: 'failure',
  content_type: 'contentType',
  filename: 'filename',
  byte_size: 'byteSize',
  row_count: 'rowCount',
  created_at: 'createdAt',
  started_at: 'startedAt',
  completed_at: 'completedAt',
  expires_at: 'expiresAt',
} as const satisfies Record<string, keyof Report>;

type Column = keyof typeof FIELDS;
const MAPPING = rowMapping<Report, Column>('reports', FIELDS, ['parameters']);

export const REPORT_ROWS = {
  ...MAPPING,
  // bigint arrives as a string from node-postgres.
  fromRow(row: Record<Column, unknown>): Report {
    const report = MAPPING.fromRow(row);
    return { ...report, byteSize: report.byteSize === null ? null : Number(report.byteSize) };
  },
};
