/** Every event's data names its work and carries the work's event sequence number. */
export type WorkEventBase<Naming> = Naming & { sequence: number };

/** Why and when work failed, as its failure event tells it. */
export interface WorkFailure {
  /** A reason code receivers branch on. */
  reason: string;
  /** What people read. */
  message: string;
  failedAt: Date;
}

/** The parts of a kind's event data that every kind builds the same way. */
export interface WorkEventData<Work, Naming> {
  /** What every event about `work` starts with, at its place `sequence` in the work's events. */
  base(work: Work, sequence: number): WorkEventBase<Naming>;
  /** The data of the work's failure event. */
  failed(
    work: Work,
    failure: WorkFailure,
    sequence: number,
  ): WorkEventBase<Naming> & { reason: string; message: string; failed_at: string };
}

/**
 * A kind's event data from `naming`: the fields that name a piece of its
 * work in each of its events (its public id first), which is all a kind
 * supplies; each event then adds its own fields.
 */
export function workEventData<Work, Naming extends object>(
  naming: (work: Work) => Naming,
): WorkEventData<Work, Naming> {
  const base = (work: Work, sequence: number): WorkEventBase<Naming> => ({
    ...naming(work),
    sequence,
  });
  return {
    base,
    failed: (work, { reason, message, failedAt }, sequence) => ({
      ...base(work, sequence),
      reason,
      message,
      failed_at: failedAt.toISOString(),
    }),
  };
}
