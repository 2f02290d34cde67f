import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { AppError, newKey, parsePublicId, toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql, type KeysetPage, type PageRequest } from '#database';
import { EventLog } from '#events';
import {
  CONTENT_TYPES,
  type Report,
  type ReportContent,
  type ReportFormat,
  type ReportParameters,
  type ReportType,
} from './report.js';
import { ReportsRepository } from './reports.repository.js';

export interface NewReport {
  reportType: ReportType;
  format: ReportFormat;
  parameters: ReportParameters;
}

const DAY_MS = 24 * 3600 * 1000;
const READ_PIECE_BYTES = 1024 * 1024;

/**
 * Reports for API callers: ask for one (built by the worker), read, list,
 * download and delete. An expired report is gone for the caller the moment
 * it expires (404), whether or not the worker's retention has deleted it yet.
 */
@Injectable()
export class ReportsService {
  constructor(
    private readonly sql: Sql,
    private readonly reports: ReportsRepository,
    private readonly events: EventLog,
    private readonly settings: AppSettings,
  ) {}

  async create(tenant: Tenant, input: NewReport, requestId: string | null): Promise<Report> {
    const { uuid, id } = newKey('report');
    const now = new Date();
    // The report and the event that starts its build commit together: the relay queues
    // the build (ReportScheduler), so no report is stored without the means to start it.
    return this.sql.transaction(async (tx) => {
      const report = await this.reports.insert(tx, tenant, {
        id: uuid,
        reportType: input.reportType,
        format: input.format,
        parameters: input.parameters,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.settings.reportRetentionDays * DAY_MS),
      });
      await this.events.appendInternal(
        tx,
        tenant,
        'internal.report_requested',
        { report_id: id },
        requestId,
      );
      return report;
    });
  }

  async get(tenant: Tenant, publicId: string): Promise<Report> {
    const uuid = parsePublicId('report', publicId);
    if (uuid === null) throw AppError.notFound('report', publicId);
    const report = await this.reports.find(tenant, uuid);
    if (!report) throw AppError.notFound('report', publicId);
    return report;
  }

  /** The finished document; 409 naming `status` until the report is completed. */
  async content(tenant: Tenant, publicId: string): Promise<ReportContent> {
    const report = await this.get(tenant, publicId);
    if (report.status !== 'completed') {
      throw new AppError('CONFLICT', `Report ${publicId} is ${report.status}, not completed`, {
        field: 'status',
        issue: `is ${report.status}; download once it is completed`,
      });
    }
    const oid = await this.reports.contentOid(tenant, report.id);
    if (!oid) throw AppError.notFound('report', publicId);
    return {
      content: Readable.from(this.pieces(oid, report.byteSize ?? 0)),
      byteSize: report.byteSize ?? 0,
      contentType: report.contentType ?? CONTENT_TYPES[report.format],
      filename: report.filename ?? `${publicId}.${report.format}`,
    };
  }

  /** The large object in 1 MB pieces (lo_get), read as the response is sent. */
  private async *pieces(oid: number, size: number): AsyncGenerator<Buffer> {
    for (let offset = 0; offset < size; offset += READ_PIECE_BYTES) {
      yield await this.reports.readDocument(oid, offset, Math.min(READ_PIECE_BYTES, size - offset));
    }
  }

  page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<Report>> {
    return this.reports.page(tenant, request);
  }

  async delete(tenant: Tenant, publicId: string): Promise<void> {
    const uuid = parsePublicId('report', publicId);
    if (uuid === null) throw AppError.notFound('report', publicId);
    const deleted = await this.sql.transaction((tx) => this.reports.delete(tx, tenant, uuid));
    if (!deleted) throw AppError.notFound('report', publicId);
  }
}

export function reportPublicId(report: Report): string {
  return toPublicId('report', report.id);
}
