import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HistoryAnalyticsService } from '#analytics';
import { toPublicId, type Mode } from '#common';
import { Sql } from '#database';
import { EventLog } from '#events';
import { JobProducer, PeriodicTasks, QUEUE, requeueLostWork, type UnfinishedWork } from '#queue';
import { LargeObjectSink, ReportTooLargeError } from './large-object-sink.js';
import { buildReport } from './report-builder.js';
import { CONTENT_TYPES, type Report } from './report.js';
import { REPORT_ROWS } from './report-rows.js';

/** Reports left queued this long have lost their job (Redis away when they were asked for). */
const LOST_AFTER_MS = 60_000;
/** Unfinished reports read per page when Redis lost its data. */
const RECOVERY_PAGE = 1000;

/**
 * The worker's side of reports: builds one (queued → processing →
 * completed | failed, each step a guarded UPDATE), deletes expired ones and
 * queues again those whose job was lost: a minute after they were asked for,
 * or at once when Redis lost its data.
 */
@Injectable()
export class ReportRunner implements OnModuleInit {
  private readonly logger = new Logger(ReportRunner.name);

  constructor(
    private readonly sql: Sql,
    private readonly jobs: JobProducer,
    private readonly tasks: PeriodicTasks,
    private readonly analytics: HistoryAnalyticsService,
    private readonly events: EventLog,
  ) {}

  onModuleInit(): void {
    this.tasks.register({
      name: 'reports.sweep',
      everyMs: 60_000,
      run: () => this.sweep(),
      recover: async () => ({ requeued: await this.recoverLostJobs() }),
    });
  }

  /**
   * Builds the report. A job run again after a crash finds it `processing`
   * and builds it again; a finished or deleted one is left alone.
   */
  async run(reportId: string, requestId: string | null = null): Promise<void> {
    const [claimed] = await this.sql.rows<Record<string, unknown>>(
      `UPDATE reports SET status = 'processing', started_at = now()
        WHERE id = $1 AND status IN ('queued', 'processing') AND expires_at > now()
        RETURNING ${REPORT_ROWS.selectList}`,
      [reportId],
    );
    if (!claimed) return;
    const report = REPORT_ROWS.fromRow(claimed as never);
    const sink = await LargeObjectSink.create(this.sql);
    try {
      const built = await this.sql.transaction(async (client) => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
        return buildReport(
          client,
          report,
          {
            id: toPublicId('report', report.id),
            reportType: report.reportType,
            format: report.format,
            parameters: report.parameters,
            generatedAt: report.parameters.generatedAt
              ? new Date(report.parameters.generatedAt)
              : new Date(),
          },
          { performance: () => this.analytics.performance(report) },
          sink,
        );
      });
      const size = await sink.close();
      const kept = await this.sql.transaction(async (tx) => {
        const { rows } = await tx.query<{ completed_at: Date }>(
          `UPDATE reports SET status = 'completed', completed_at = now(), content_oid = $2,
              content_type = $3, filename = $4, byte_size = $5, row_count = $6
            WHERE id = $1 AND status = 'processing' RETURNING completed_at`,
          [
            report.id,
            sink.oid,
            CONTENT_TYPES[report.format],
            filename(report),
            size,
            built.rowCount,
          ],
        );
        if (rows.length === 0) return false;
        await this.events.append(
          tx,
          report,
          'report.completed',
          {
            ...eventBase(report),
            status: 'completed',
            row_count: built.rowCount,
            byte_size: size,
            completed_at: rows[0]!.completed_at.toISOString(),
            expires_at: report.expiresAt.toISOString(),
          },
          requestId,
        );
        return true;
      });
      // Deleted (or finished by another run) meanwhile: its document goes.
      if (!kept) await sink.discard();
    } catch (error) {
      await sink.discard();
      if (error instanceof ReportTooLargeError) {
        await this.fail(report, error.message, requestId);
        return;
      }
      this.logger.error({ err: error, reportId: report.id }, 'report failed');
      await this.fail(report, 'the report could not be built', requestId);
    }
  }

  private async fail(report: Report, failure: string, requestId: string | null): Promise<void> {
    await this.sql.transaction(async (tx) => {
      const { rows } = await tx.query<{ completed_at: Date }>(
        `UPDATE reports SET status = 'failed', failure = $2, completed_at = now()
          WHERE id = $1 AND status = 'processing' RETURNING completed_at`,
        [report.id, failure],
      );
      if (rows.length === 0) return;
      await this.events.append(
        tx,
        report,
        'report.failed',
        {
          ...eventBase(report),
          status: 'failed',
          failure,
          failed_at: rows[0]!.completed_at.toISOString(),
        },
        requestId,
      );
    });
  }

  /** Deletes expired reports and queues again those left queued without a job. */
  async sweep(): Promise<{ expired: number; requeued: number }> {
    const expired = await this.sql.rows(
      `DELETE FROM reports WHERE id IN (
          SELECT id FROM reports WHERE expires_at <= now() LIMIT 1000) RETURNING id`,
      [],
    );
    const lost = await this.sql.rows<{ id: string; organization_id: string; mode: Mode }>(
      `SELECT id, organization_id, mode FROM reports
        WHERE status = 'queued' AND created_at < $1 LIMIT 1000`,
      [new Date(Date.now() - LOST_AFTER_MS)],
    );
    await this.jobs.addBulk(
      QUEUE.reports,
      'build',
      lost.map((row) => ({
        data: {
          reportId: row.id,
          organizationId: row.organization_id,
          mode: row.mode,
          requestId: null,
        },
        options: { jobId: toPublicId('report', row.id) },
      })),
    );
    return { expired: expired.length, requeued: lost.length };
  }

  /**
   * After Redis lost its data: queues again every unexpired report still
   * queued or being built whose job is gone, however recent; returns how
   * many. The job id is the report's public id, as when it was asked for, so
   * of several workers recovering at once one adds it. A report a worker was
   * building when Redis went is built again by its new job too; whichever
   * finishes second finds it finished and changes nothing.
   */
  async recoverLostJobs(): Promise<number> {
    return requeueLostWork(
      this.jobs,
      { queue: QUEUE.reports, name: 'build', pageSize: RECOVERY_PAGE },
      {
        sql: this.sql,
        columns: 'id, organization_id, mode',
        table: 'reports',
        where: `status IN ('queued', 'processing') AND expires_at > now()`,
        orderBy: 'created_at',
      },
      (report: UnfinishedReport) => {
        const jobId = toPublicId('report', report.id);
        return {
          ids: { first: jobId, resumed: jobId, recover: jobId },
          data: {
            reportId: report.id,
            organizationId: report.organization_id,
            mode: report.mode,
            requestId: null,
          },
        };
      },
    );
  }
}

interface UnfinishedReport extends UnfinishedWork {
  organization_id: string;
  mode: Mode;
}

/** A report has one event, completed or failed: its sequence is 1. */
function eventBase(report: Report) {
  return {
    report_id: toPublicId('report', report.id),
    report_type: report.reportType,
    format: report.format,
    sequence: 1,
  };
}

/** `history-report-2026-11-24-rpt_….csv`: what the download's Content-Disposition names. */
function filename(report: Report): string {
  const day = report.createdAt.toISOString().slice(0, 10);
  return `${report.reportType}-report-${day}-${toPublicId('report', report.id)}.${report.format}`;
}
