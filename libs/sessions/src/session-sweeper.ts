import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { JobProducer, PeriodicTasks, QUEUE } from '#queue';
import { WorkSweeper } from '#work';
import { SessionsRepository, type RunningSession } from './sessions.repository.js';

/**
 * Restarts simulated sessions whose work was lost (WorkSweeper): unchanged
 * for longer than the slowest steps take, with no job pending to run them.
 */
@Injectable()
export class SessionSweeper extends WorkSweeper<RunningSession, 'sessions', 'run'> {
  constructor(
    sessions: SessionsRepository,
    jobs: JobProducer,
    tasks: PeriodicTasks,
    settings: AppSettings,
  ) {
    super(
      {
        queue: QUEUE.sessions,
        jobName: 'run',
        idKind: 'session',
        firstStatus: 'initiated',
        jobOf: (session) => ({
          data: {
            sessionId: session.id,
            organizationId: session.organizationId,
            mode: session.mode,
            requestId: null,
          },
        }),
        stale: (changedBefore, limit) => sessions.staleAcrossTenants(changedBefore, limit),
        unfinished: () => sessions.unfinishedAcrossTenants(),
      },
      jobs,
      tasks,
      settings,
    );
  }
}
