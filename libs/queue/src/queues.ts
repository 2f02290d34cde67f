import type { JobsOptions } from 'bullmq';
import type { Mode } from '#common';

/** Queue names and, per queue, the job name → job data map shared by producers and consumers. */
export const QUEUE = {
  events: 'events',
  sessions: 'sessions',
  analyses: 'analyses',
  reports: 'reports',
  maintenance: 'maintenance',
  /** The work of kinds plugged into libs/work without a queue of their own (PluggedWork). */
  work: 'work',
} as const;
export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

/**
 * An event as a dispatch job carried it. Only workers of earlier versions
 * queued dispatch jobs; the relay now queues the work an event starts itself.
 */
export interface DispatchedEvent {
  id: string;
  organizationId: string;
  mode: Mode;
  type: string;
  data: Record<string, unknown>;
  requestId: string | null;
  /** ISO 8601. */
  createdAt: string;
}

export interface JobDataMap {
  /**
   * Queued by earlier versions only (see DispatchedEvent), and still run, so an upgrade loses
   * none. `event` is absent from jobs queued before it was carried: those read the event by id.
   */
  events: { dispatch: { eventId: string; requestId: string | null; event?: DispatchedEvent } };
  sessions: {
    run: { sessionId: string; organizationId: string; mode: Mode; requestId: string | null };
  };
  /** Jobs carry a BullMQ priority from the analysis's priority: urgent ones start first. */
  analyses: {
    run: { analysisId: string; organizationId: string; mode: Mode; requestId: string | null };
  };
  /** The job id is the report's public id: a report is built once. */
  reports: {
    build: { reportId: string; organizationId: string; mode: Mode; requestId: string | null };
  };
  /** One job name per periodic task (PeriodicTasks), no data. */
  maintenance: Record<string, Record<string, never>>;
  /** The job id is the work's public id: a piece of work is started once. */
  work: {
    run: {
      kind: string;
      workId: string;
      organizationId: string;
      mode: Mode;
      requestId: string | null;
    };
  };
}

export type JobName<Q extends QueueName> = keyof JobDataMap[Q] & string;
export type JobData<Q extends QueueName, N extends JobName<Q>> = JobDataMap[Q][N];

/** One job of any queue, its data matching its queue and name; the id makes adding it idempotent. */
export type QueuedJob = {
  [Q in QueueName]: {
    [N in JobName<Q>]: {
      queue: Q;
      name: N;
      data: JobData<Q, N>;
      options: JobsOptions & { jobId: string };
    };
  }[JobName<Q>];
}[QueueName];
