import type { SessionEntity } from './entities/session.entity.js';

/**
 * The phase shown in a status read. The spec shows only `data_collection`;
 * ours follow the session's progress so clients can display where it is.
 */
export type SessionPhase =
  'queued' | 'data_collection' | 'analysis' | 'validation' | 'completed' | 'failed';

export function phaseOf(session: Pick<SessionEntity, 'status' | 'progress'>): SessionPhase {
  switch (session.status) {
    case 'initiated':
      return 'queued';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'in_progress':
      if (session.progress < 60) return 'data_collection';
      return session.progress < 90 ? 'analysis' : 'validation';
  }
}

export const PROGRESS_STEP = 10;
export const PROGRESS_STEPS = 100 / PROGRESS_STEP;
