import { Injectable } from '@nestjs/common';
import type { AnalysisPriority } from '#engines';
import { EventJobs } from '#events';
import { QUEUE } from '#queue';
import { WorkScheduler } from '#work';
import { QUEUE_PRIORITY } from './analysis-estimates.js';

/**
 * Queues the work of a new analysis with its `analysis.created` event
 * (WorkScheduler), at the queue priority of its `priority`, so under a
 * backlog an urgent analysis starts before earlier low ones.
 */
@Injectable()
export class AnalysisScheduler extends WorkScheduler<'analyses', 'run'> {
  constructor(eventJobs: EventJobs) {
    super(
      {
        createdEvent: 'analysis.created',
        idKind: 'analysis',
        queue: QUEUE.analyses,
        jobName: 'run',
        jobOf: (analysisId, event) => ({
          data: {
            analysisId,
            organizationId: event.organizationId,
            mode: event.mode,
            requestId: event.requestId,
          },
          options: {
            priority:
              QUEUE_PRIORITY[event.data.priority as AnalysisPriority] ?? QUEUE_PRIORITY.medium,
          },
        }),
      },
      eventJobs,
    );
  }
}
