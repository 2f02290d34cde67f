import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HistoryAnalyticsService } from '#analytics';
import { toPublicId } from '#common';
import { Sql } from '#database';
import { EventLog } from '#events';
import { HistoryReadModelRepository } from '#history';
import { JobProducer, PeriodicTasks, QUEUE, requeueLostWork } from '#queue';
import { LargeObjectSink, ReportTooLargeError } from './large-object-sink.js';
import { buildReport } from './report-builder.js';
import { buildJob } from './report-scheduler.js';
import { CONTENT_TYPES, type Report } from './report.js';
import { ReportsRepository } from './reports.repository.js';

/**
 * Reports left queued this long have lost their job: the relay queued it (ReportScheduler)
 * and Redis lost it, or the relay is that far behind (the job id makes a second add a no-op).
 */
const LOST_AFTER_MS = 60_000;
/** Unfinished reports read per page when Redis lost its data. */
const RECOVERY_PAGE = 1000;
/** Expired reports deleted, and lost ones queued again, per sweep. */
const SWEEP_BATCH = 1000;

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
    private readonly reports: ReportsRepository,
    private readonly cases: HistoryReadModelRepository,
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
    const report = await this.sql.transaction((tx) =>
      this.reports.claimForBuildAcrossTenants(tx, reportId),
    );
    if (!report) return;
    const sink = await LargeObjectSink.create(this.reports);
    try {
      const built = await this.sql.transaction(async (snapshot) => {
        await this.reports.readSnapshot(snapshot);
        return buildReport(
          snapshot,
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
          { cases: this.cases, performance: () => this.analytics.performance(report) },
          sink,
        );
      });
      const size = await sink.close();
      const kept = await this.sql.transaction(async (tx) => {
        const completedAt = await this.reports.complete(tx, report, report.id, {
          contentOid: sink.oid,
          contentType: CONTENT_TYPES[report.format],
          filename: filename(report),
          byteSize: size,
          rowCount: built.rowCount,
        });
        if (completedAt === null) return false;
        await this.events.append(
          tx,
          report,
          'report.completed',
          {
            ...eventBase(report),
            status: 'completed',
            row_count: built.rowCount,
            byte_size: size,
            completed_at: completedAt.toISOString(),
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
      const failedAt = await this.reports.fail(tx, report, report.id, failure);
      if (failedAt === null) return;
      await this.events.append(
        tx,
        report,
        'report.failed',
        {
          ...eventBase(report),
          status: 'failed',
          failure,
          failed_at: failedAt.toISOString(),
        },
        requestId,
      );
    });
  }

  /** Deletes expired reports and queues again those left queued without a job. */
  async sweep(): Promise<{ expired: number; requeued: number }> {
    const expired = await this.sql.transaction((tx) =>
      this.reports.deleteExpiredAcrossTenants(tx, SWEEP_BATCH),
    );
    const lost = await this.reports.queuedBeforeAcrossTenants(
      new Date(Date.now() - LOST_AFTER_MS),
      SWEEP_BATCH,
    );
    await this.jobs.addAll(lost.map((report) => buildJob(report, null)));
    return { expired, requeued: lost.length };
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
      this.reports.unfinishedAcrossTenants(),
      (report) => {
        const { data, options } = buildJob(report, null);
        return {
          ids: { first: options.jobId, resumed: options.jobId, recover: options.jobId },
          data,
        };
      },
    );
  }
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
