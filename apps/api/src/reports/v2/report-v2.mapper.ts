import { AppError } from '#common';
import { reportPublicId, type NewReport, type Report } from '#reports';
import type { GenerateReportDto, ReportDto } from './report-v2.dto.js';

const DAY_MS = 24 * 3600 * 1000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The request as the service stores it: dates as instants, `date_to` inclusive. */
export function toNewReport(body: GenerateReportDto): NewReport {
  const dateFrom = body.date_from === undefined ? null : new Date(body.date_from);
  const dateTo = body.date_to === undefined ? null : new Date(body.date_to);
  if (dateFrom && dateTo && dateTo < dateFrom) {
    throw AppError.invalid('date_to', 'must not be before date_from', body.date_from);
  }
  return {
    reportType: body.report_type,
    format: body.format,
    parameters: {
      dateFrom: dateFrom?.toISOString() ?? null,
      // Inclusive: a date means its whole day.
      dateTo:
        dateTo === null
          ? null
          : new Date(
              dateTo.getTime() + (DATE_ONLY.test(body.date_to!) ? DAY_MS - 1 : 0),
            ).toISOString(),
      type: body.type ?? null,
    },
  };
}

export function toReportDto(report: Report): ReportDto {
  const id = reportPublicId(report);
  return {
    report_id: id,
    report_type: report.reportType,
    format: report.format,
    status: report.status,
    parameters: {
      date_from: report.parameters.dateFrom,
      date_to: report.parameters.dateTo,
      type: report.parameters.type,
    },
    failure: report.failure,
    content_type: report.contentType,
    filename: report.filename,
    byte_size: report.byteSize,
    row_count: report.rowCount,
    created_at: report.createdAt.toISOString(),
    completed_at: report.completedAt?.toISOString() ?? null,
    expires_at: report.expiresAt.toISOString(),
    links: {
      self: `/v2/reports/${id}`,
      download: report.status === 'completed' ? `/v2/reports/${id}/download` : null,
    },
  };
}
