import { Injectable, type OnModuleInit } from '@nestjs/common';
import { parsePublicId, toPublicId } from '#common';
import { EventJobs } from '#events';
import { QUEUE, type QueuedJob } from '#queue';
import type { QueuedReport } from './reports.repository.js';

/** The job that builds one report. */
export type BuildJob = Extract<QueuedJob, { queue: 'reports' }>;

/**
 * The build job of a report. Its id is the report's public id wherever it is
 * queued from (the relay, the sweep, the recovery after Redis lost its data),
 * so a report is queued once however many of them find it.
 */
export function buildJob(report: QueuedReport, requestId: string | null): BuildJob {
  return {
    queue: QUEUE.reports,
    name: 'build',
    data: {
      reportId: report.id,
      organizationId: report.organizationId,
      mode: report.mode,
      requestId,
    },
    options: { jobId: toPublicId('report', report.id) },
  };
}

/**
 * Starts the build of a report that was asked for. Reports start through the
 * outbox like sessions and analyses: the report row and an
 * `internal.report_requested` event commit together (ReportsService), and
 * the relay queues the build from the event. Internal, because the event
 * catalogue has no `report.created` and adding one would change the public
 * contract; webhooks, live sockets and the event log never see it
 * (libs/events/src/internal-events.ts). Nothing is written to Redis after
 * the commit, so no report is stored without the means to start it; the
 * `reports.sweep` stays as the fallback for a job Redis lost.
 */
@Injectable()
export class ReportScheduler implements OnModuleInit {
  constructor(private readonly eventJobs: EventJobs) {}

  onModuleInit(): void {
    this.eventJobs.on('internal.report_requested', (event) => {
      const reportId = parsePublicId('report', String(event.data.report_id));
      if (reportId === null) {
        throw new Error(`internal.report_requested event ${event.id} names no report`);
      }
      return buildJob(
        { id: reportId, organizationId: event.organizationId, mode: event.mode },
        event.requestId,
      );
    });
  }
}
