import { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { AppError, newKey, parsePublicId, toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql, tenantConditions, TenantLists, type KeysetPage, type PageRequest } from '#database';
import { JobProducer, QUEUE } from '#queue';
import {
  CONTENT_TYPES,
  type Report,
  type ReportContent,
  type ReportFormat,
  type ReportParameters,
  type ReportType,
} from './report.js';
import { REPORT_ROWS } from './report-rows.js';

export interface NewReport {
  reportType: ReportType;
  format: ReportFormat;
  parameters: ReportParameters;
}

const DAY_MS = 24 * 3600 * 1000;
const READ_PIECE_BYTES = 1024 * 1024;

/**
 * Reports for API callers: ask for one (queued for the worker), read, list,
 * download and delete. An expired report is gone for the caller the moment
 * it expires (404), whether or not the worker's retention has deleted it yet.
 */
@Injectable()
export class ReportsService {
  private readonly logger = new Logger(ReportsService.name);
  private readonly lists: TenantLists<Report, string>;

  constructor(
    private readonly sql: Sql,
    private readonly jobs: JobProducer,
    private readonly settings: AppSettings,
  ) {
    this.lists = new TenantLists(sql, 'reports', REPORT_ROWS, 'replicas');
  }

  async create(tenant: Tenant, input: NewReport, requestId: string | null): Promise<Report> {
    const { uuid, id } = newKey('report');
    const now = new Date();
    const [row] = await this.sql.rows<Record<string, unknown>>(
      `INSERT INTO reports (id, organization_id, mode, report_type, format, parameters, status, created_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8) RETURNING ${REPORT_ROWS.selectList}`,
      [
        uuid,
        tenant.organizationId,
        tenant.mode,
        input.reportType,
        input.format,
        JSON.stringify(input.parameters),
        now,
        new Date(now.getTime() + this.settings.reportRetentionDays * DAY_MS),
      ],
    );
    // After the insert has committed: a job lost here (Redis away) is queued again by
    // the worker's reports.sweep, which looks for reports left queued.
    try {
      await this.jobs.add(
        QUEUE.reports,
        'build',
        { reportId: uuid, organizationId: tenant.organizationId, mode: tenant.mode, requestId },
        { jobId: id },
      );
    } catch (error) {
      this.logger.warn({ err: error, reportId: id }, 'report job not queued; the sweep will');
    }
    return REPORT_ROWS.fromRow(row as never);
  }

  async get(tenant: Tenant, publicId: string): Promise<Report> {
    const uuid = parsePublicId('report', publicId);
    if (uuid === null) throw AppError.notFound('report', publicId);
    const [row] = await this.sql.rows<Record<string, unknown>>(
      `SELECT ${REPORT_ROWS.selectList} FROM reports
        WHERE id = $1 AND organization_id = $2 AND mode = $3 AND expires_at > now()`,
      [uuid, tenant.organizationId, tenant.mode],
    );
    if (!row) throw AppError.notFound('report', publicId);
    return REPORT_ROWS.fromRow(row as never);
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
    const [row] = await this.sql.rows<{ content_oid: number | null }>(
      `SELECT content_oid FROM reports WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [report.id, tenant.organizationId, tenant.mode],
    );
    if (!row?.content_oid) throw AppError.notFound('report', publicId);
    return {
      content: Readable.from(this.pieces(row.content_oid, report.byteSize ?? 0)),
      byteSize: report.byteSize ?? 0,
      contentType: report.contentType ?? CONTENT_TYPES[report.format],
      filename: report.filename ?? `${publicId}.${report.format}`,
    };
  }

  /** The large object in 1 MB pieces (lo_get), read as the response is sent. */
  private async *pieces(oid: number, size: number): AsyncGenerator<Buffer> {
    for (let offset = 0; offset < size; offset += READ_PIECE_BYTES) {
      const [piece] = await this.sql.rows<{ data: Buffer }>('SELECT lo_get($1, $2, $3) AS data', [
        oid,
        offset,
        Math.min(READ_PIECE_BYTES, size - offset),
      ]);
      yield piece!.data;
    }
  }

  page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<Report>> {
    const where = tenantConditions(tenant);
    where.and('expires_at > now()');
    return this.lists.page(tenant, where, request);
  }

  async delete(tenant: Tenant, publicId: string): Promise<void> {
    const uuid = parsePublicId('report', publicId);
    if (uuid === null) throw AppError.notFound('report', publicId);
    const deleted = await this.sql.rows(
      `DELETE FROM reports WHERE id = $1 AND organization_id = $2 AND mode = $3 AND expires_at > now()
        RETURNING id`,
      [uuid, tenant.organizationId, tenant.mode],
    );
    if (deleted.length === 0) throw AppError.notFound('report', publicId);
  }
}

export function reportPublicId(report: Report): string {
  return toPublicId('report', report.id);
}
