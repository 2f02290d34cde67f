import type { JobsOptions } from 'bullmq';
import type { JobProducer } from './job-producer.js';
import type { JobData, JobName, QueueName } from './queues.js';

/** A row of unfinished work as a recovery pages through it. */
export interface UnfinishedWork {
  id: string;
  /** The ordering column to the microsecond, as text, where the next page begins (a Date drops microseconds). */
  position: string;
}

/**
 * One page of unfinished work after `after` (null: the first page), at most
 * `pageSize` rows in the order recovery reads them: the owning lib's
 * repository reads it (`unfinishedWorkPages`, #database, pages through a
 * statement it gives), so this lib names no table.
 */
export type UnfinishedPages<Row extends UnfinishedWork> = (
  after: UnfinishedWork | null,
  pageSize: number,
) => Promise<Row[]>;

/**
 * A piece of work's job ids: its first (the scheduler's, from its `created`
 * event), the one the periodic sweep gives it in the state found, and which
 * of the two recovery gives it (the first while it has not started, so the
 * job its event adds when relayed again is the same job).
 */
export interface WorkJobIds {
  first: string;
  resumed: string;
  recover: string;
}

/**
 * The job ids of a piece of work whose first job id is `first`, last changed
 * at `updatedAt`: the sweep's id names that state, so a sweep or a recovery
 * adds it once per state.
 */
export function workJobIds(first: string, updatedAt: Date, started: boolean): WorkJobIds {
  const resumed = `${first}-resumed-${updatedAt.getTime()}`;
  return { first, resumed, recover: started ? resumed : first };
}

/**
 * After Redis lost its data: pages through unfinished work (`unfinished`, a
 * page at a time) and enqueues again each piece none of whose jobs
 * Redis still holds, under its recovery id, so a second worker recovering at
 * the same time adds nothing; returns how many.
 */
export async function requeueLostWork<
  Row extends UnfinishedWork,
  Q extends QueueName,
  N extends JobName<Q>,
>(
  jobs: JobProducer,
  target: { queue: Q; name: N; pageSize: number },
  unfinished: UnfinishedPages<Row>,
  jobOf: (row: Row) => { ids: WorkJobIds; data: JobData<Q, N>; options?: JobsOptions },
): Promise<number> {
  let after: Row | null = null;
  let requeued = 0;
  for (;;) {
    const rows = await unfinished(after, target.pageSize);
    const planned = rows.map(jobOf);
    const pending = await Promise.all(
      planned.map(({ ids }) => jobs.anyPending(target.queue, [ids.first, ids.resumed])),
    );
    const lost = planned.filter((_, i) => !pending[i]);
    await jobs.addBulk(
      target.queue,
      target.name,
      lost.map(({ ids, data, options }) => ({ data, options: { ...options, jobId: ids.recover } })),
    );
    requeued += lost.length;
    if (rows.length < target.pageSize) return requeued;
    after = rows[rows.length - 1]!;
  }
}
