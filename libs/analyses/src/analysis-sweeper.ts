import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { JobProducer, PeriodicTasks, QUEUE } from '#queue';
import { WorkSweeper } from '#work';
import { AnalysesRepository, type RunningAnalysis } from './analyses.repository.js';
import { QUEUE_PRIORITY } from './analysis-estimates.js';

/**
 * Restarts analyses whose work was lost (WorkSweeper), at their queue
 * priority: unchanged for longer than the slowest steps and a material
 * fetch take, with no job pending to run them.
 */
@Injectable()
export class AnalysisSweeper extends WorkSweeper<RunningAnalysis, 'analyses', 'run'> {
  constructor(
    analyses: AnalysesRepository,
    jobs: JobProducer,
    tasks: PeriodicTasks,
    settings: AppSettings,
  ) {
    super(
      {
        queue: QUEUE.analyses,
        jobName: 'run',
        idKind: 'analysis',
        firstStatus: 'queued',
        extraQuietMs: (current) => current.outbound.materialTimeoutMs,
        jobOf: (analysis) => ({
          data: {
            analysisId: analysis.id,
            organizationId: analysis.organizationId,
            mode: analysis.mode,
            requestId: null,
          },
          options: { priority: QUEUE_PRIORITY[analysis.priority] },
        }),
        stale: (changedBefore, limit) => analyses.staleAcrossTenants(changedBefore, limit),
        unfinished: () => analyses.unfinishedAcrossTenants(),
      },
      jobs,
      tasks,
      settings,
    );
  }
}
