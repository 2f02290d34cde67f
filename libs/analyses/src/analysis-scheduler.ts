import { Injectable, type OnModuleInit } from '@nestjs/common';
import { parsePublicId } from '#common';
import type { AnalysisPriority } from '#engines';
import { EventJobs } from '#events';
import { QUEUE } from '#queue';
import { QUEUE_PRIORITY } from './analysis-estimates.js';

/**
 * Queues the work of a new analysis: the relay adds its run with its
 * `analysis.created` event, at the queue priority of its `priority`, so under
 * a backlog an urgent analysis starts before earlier low ones. The job id is
 * the analysis id, so an event relayed twice still runs the analysis once.
 */
@Injectable()
export class AnalysisScheduler implements OnModuleInit {
  constructor(private readonly eventJobs: EventJobs) {}

  onModuleInit(): void {
    this.eventJobs.on('analysis.created', (event) => {
      const publicId = String(event.data.analysis_id);
      const analysisId = parsePublicId('analysis', publicId);
      if (analysisId === null) {
        throw new Error(`analysis.created event ${event.id} names no analysis`);
      }
      const priority =
        QUEUE_PRIORITY[event.data.priority as AnalysisPriority] ?? QUEUE_PRIORITY.medium;
      return {
        queue: QUEUE.analyses,
        name: 'run',
        data: {
          analysisId,
          organizationId: event.organizationId,
          mode: event.mode,
          requestId: event.requestId,
        },
        options: { jobId: publicId, priority },
      };
    });
  }
}
