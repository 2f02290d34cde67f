import type { JobsOptions } from 'bullmq';
import type { JobProducer } from './job-producer.js';
import type { JobData, JobName, QueueName } from './queues.js';

/** A row of unfinished work as a recovery pages through it. */
export interface UnfinishedWork {
  id: string;
  /** The ordering column to the microsecond, as text, where the next page begins (a Date drops microseconds). */
  position: string;
}

/** How recovery reads rows: the database's `Sql`, without this lib depending on it. */
export interface RowReader {
  rows<T>(text: string, parameters: unknown[]): Promise<T[]>;
}

/**
 * Which rows are unfinished work: `SELECT <columns> FROM <table> WHERE <where>`
 * (a condition without parameters); read in
 * (`orderBy`, id) order, `orderBy` a timestamptz column. With `changedBefore`
 * (a timestamptz column), only rows it dates before recovery began, by the
 * database's clock, whatever page they are on: a row changed since is being
 * run by something.
 */
export interface UnfinishedQuery {
  sql: RowReader;
  columns: string;
  table: string;
  where: string;
  orderBy: string;
  changedBefore?: string;
}

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
 * keyset page at a time) and enqueues again each piece none of whose jobs
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
  unfinished: UnfinishedQuery,
  jobOf: (row: Row) => { ids: WorkJobIds; data: JobData<Q, N>; options?: JobsOptions },
): Promise<number> {
  const { sql, columns, table, orderBy, changedBefore } = unfinished;
  let where = unfinished.where;
  const parameters: unknown[] = [];
  if (changedBefore !== undefined) {
    const [{ now }] = await sql.rows<{ now: string }>('SELECT now()::text AS now', []);
    parameters.push(now);
    where = `(${where}) AND ${changedBefore} < $1::timestamptz`;
  }
  const [position, id, limit] = [1, 2, 3].map((i) => `$${parameters.length + i}`);
  const text = `SELECT ${columns}, ${orderBy}::text AS position FROM ${table}
     WHERE (${where})
       AND (${position}::timestamptz IS NULL OR (${orderBy}, id) > (${position}::timestamptz, ${id}::uuid))
     ORDER BY ${orderBy}, id LIMIT ${limit}`;
  let after: Row | null = null;
  let requeued = 0;
  for (;;) {
    const rows: Row[] = await sql.rows<Row>(text, [
      ...parameters,
      after?.position ?? null,
      after?.id ?? null,
      target.pageSize,
    ]);
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
