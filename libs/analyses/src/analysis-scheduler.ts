import { Injectable, type OnModuleInit } from '@nestjs/common';
import { parsePublicId } from '#common';
import type { AnalysisPriority } from '#engines';
import { EventDispatcher } from '#events';
import { JobProducer, QUEUE } from '#queue';
import { QUEUE_PRIORITY } from './analysis-estimates.js';

/**
 * Queues the work of a new analysis when its `analysis.created` event is
 * relayed, with the queue priority of its `priority`: under a backlog an
 * urgent analysis starts before earlier low ones. The job id is the analysis
 * id, so a relayed event handled twice still runs the analysis once.
 */
@Injectable()
export class AnalysisScheduler implements OnModuleInit {
  constructor(
    private readonly dispatcher: EventDispatcher,
    private readonly jobs: JobProducer,
  ) {}

  onModuleInit(): void {
    this.dispatcher.on('analysis.created', async (event) => {
      const publicId = String(event.data.analysis_id);
      const analysisId = parsePublicId('analysis', publicId);
      if (analysisId === null) {
        throw new Error(`analysis.created event ${event.id} names no analysis`);
      }
      const priority =
        QUEUE_PRIORITY[event.data.priority as AnalysisPriority] ?? QUEUE_PRIORITY.medium;
      await this.jobs.add(
        QUEUE.analyses,
        'run',
        {
          analysisId,
          organizationId: event.organizationId,
          mode: event.mode,
          requestId: event.requestId,
        },
        { jobId: publicId, priority },
      );
    });
  }
}
