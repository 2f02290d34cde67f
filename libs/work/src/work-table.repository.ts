import type { Tenant } from '#common';
import {
  TenantLists,
  unfinishedWorkPages,
  type KeysetPage,
  type ListReads,
  type PageRequest,
  type Queryable,
  type RowMapping,
  type Sql,
  type SqlConditions,
  type Transaction,
} from '#database';
import type { WorkCase, WorkCasesRepository } from '#history';
import type { UnfinishedPages, UnfinishedWork } from '#queue';

/** Which finished work pattern recognition reads: explicit ids (uuids), or a filter. */
export interface FinishedWorkSelection {
  ids?: string[] | undefined;
  type?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** One finished piece of work as pattern recognition reads it. */
export interface FinishedWork {
  id: string;
  createdAt: Date;
  latitude: number | null;
  longitude: number | null;
  descriptors: string[];
}

/**
 * The columns every kind's table has (WorkEntity), with their entity
 * fields: a kind's row mapping spreads them and adds its own.
 */
export const WORK_COLUMNS = {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  status: 'status',
  engine: 'engine',
  engine_version: 'engineVersion',
  engine_seed: 'engineSeed',
  evidence: 'evidence',
  failure_reason: 'failureReason',
  event_sequence: 'eventSequence',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  completed_at: 'completedAt',
  batch_id: 'batchId',
} as const;

/** A value of `WorkTable.update` that is the statement's own time, `now()`. */
export const NOW: unique symbol = Symbol('now()');

/** How and when work failed, and the number of the event that says so. */
export interface StoredFailure {
  reason: string;
  /** Stored where the table keeps a message (failure_message). */
  message?: string;
  failedAt: Date;
  sequence: number;
}

/** The fields every kind of work's row has, whatever else it holds. */
export interface WorkRow {
  id: string;
  status: string;
}

/**
 * What a kind of work's table is to the lifecycle: its rows, the columns a
 * finished row's history case reads, which statuses hold a place of the
 * plan's concurrent work, and the columns the worker's sweeps read.
 */
export interface WorkTableDescription<
  W extends WorkRow,
  F extends { status: string },
  S extends { id: string },
  Q,
> {
  /** The table's name, as the mappings name it. */
  table: string;
  rows: RowMapping<W, string>;
  /** What every write returns: the columns of `toCase`'s input. */
  caseRows: RowMapping<F, string>;
  toCase: (finished: F) => WorkCase;
  /** Statuses in which work is running: it counts against the plan's concurrent work. */
  running: readonly string[];
  /** The worker's view of unfinished work it runs (not what people do: `engine <> 'analyst'`). */
  swept?: RowMapping<S, string>;
  /** Where the v1 and v2 lists read: the primary or the tenant's replica. */
  reads?: ListReads;
  /** The conditions of a list filter, the tenant's first (the lists' indexes lead with it). */
  listConditions?: (tenant: Tenant, filter: Q) => SqlConditions;
  /** Where finished work says it placed the target, and its type, as SQL on the row (pattern recognition). */
  finished?: { latitude: string; longitude: string; type: string };
}

/**
 * One kind of work's table, with the statements every kind needs written
 * once: find and lock, batch items, delete, transitions that hand out the
 * next event sequence, the concurrent-work count, the sweeps, the lists —
 * and every write keeps the work's history case in the same transaction
 * (libs/history's WorkCasesRepository), so no kind can forget it. A kind's
 * repository extends it with its description and writes its own
 * statements through `write`.
 */
export class WorkTable<
  W extends WorkRow,
  F extends { status: string },
  S extends { id: string } = never,
  Q = never,
> {
  readonly lists: TenantLists<W, string>;
  private readonly selectOne: string;
  /** `status IN (…)` of the running statuses as literals, which the tables' partial indexes match. */
  private readonly isRunning: string;

  constructor(
    protected readonly sql: Sql,
    private readonly cases: WorkCasesRepository,
    private readonly description: WorkTableDescription<W, F, S, Q>,
  ) {
    const { table, rows } = description;
    this.lists = new TenantLists(sql, table, rows, description.reads ?? 'primary');
    this.selectOne = `SELECT ${rows.selectList} FROM ${table}
      WHERE id = $1 AND organization_id = $2 AND mode = $3`;
    for (const status of description.running) {
      if (!/^[a-z_]+$/.test(status)) throw new Error(`${table}: odd status ${status}`);
    }
    this.isRunning = `status IN (${description.running.map((status) => `'${status}'`).join(', ')})`;
  }

  /** Inserts the tenant's work (its case too, when it is created finished). */
  async insert(tx: Transaction, tenant: Tenant, work: W): Promise<void> {
    const { rows, toCase } = this.description;
    const stored = { ...work, organizationId: tenant.organizationId, mode: tenant.mode };
    await tx.query(rows.insert, rows.toRow(stored));
    await this.cases.recordWritten(tx, tenant, [stored as unknown as F], toCase);
  }

  /**
   * Runs an INSERT or UPDATE of the tenant's work and writes the history
   * cases of the rows it left finished; how many rows it wrote.
   */
  async write(
    tx: Transaction,
    tenant: Tenant,
    statement: string,
    parameters: readonly unknown[],
  ): Promise<number> {
    const { caseRows, toCase } = this.description;
    const rows = await tx.rows<Record<string, unknown>>(
      `${statement} RETURNING ${caseRows.selectList}`,
      parameters,
    );
    const written = rows.map((row) => caseRows.fromRow(row));
    await this.cases.recordWritten(tx, tenant, written, toCase);
    return written.length;
  }

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<W | null> {
    const [row] = await on.rows<Record<string, unknown>>(this.selectOne, [
      id,
      tenant.organizationId,
      tenant.mode,
    ]);
    return row ? this.description.rows.fromRow(row) : null;
  }

  /** The work, its row held until `tx` ends; null when there is none. */
  async findForUpdate(tx: Transaction, tenant: Tenant, id: string): Promise<W | null> {
    const [row] = await tx.rows<Record<string, unknown>>(`${this.selectOne} FOR UPDATE`, [
      id,
      tenant.organizationId,
      tenant.mode,
    ]);
    return row ? this.description.rows.fromRow(row) : null;
  }

  /** The work of a batch, in the order of the request. */
  async batchItems(tenant: Tenant, batchId: string, on: Queryable = this.sql): Promise<W[]> {
    const { table, rows } = this.description;
    const found = await on.rows<Record<string, unknown>>(
      `SELECT ${rows.selectList} FROM ${table}
        WHERE batch_id = $1 AND organization_id = $2 AND mode = $3 ORDER BY created_at, id`,
      [batchId, tenant.organizationId, tenant.mode],
    );
    return found.map((row) => rows.fromRow(row));
  }

  /** Deletes the work and its case; its creation time (the events to redact start there), or null when there was none. */
  async delete(tx: Transaction, tenant: Tenant, id: string): Promise<Date | null> {
    const [row] = await tx.rows<{ created_at: Date }>(
      `DELETE FROM ${this.description.table} WHERE id = $1 AND organization_id = $2 AND mode = $3
         RETURNING created_at`,
      [id, tenant.organizationId, tenant.mode],
    );
    if (!row) return null;
    await this.cases.forget(tx, tenant, [id]);
    return row.created_at;
  }

  /**
   * Sets columns of the tenant's work `id` — a value `NOW` is the
   * statement's own time, a JSON column's value is written as JSON (the
   * row mapping's) — where `guard` (SQL on the row; `bind` numbers a value
   * for it) holds too, keeping the history case; whether it wrote. A column
   * the mapping does not name throws before any SQL is sent.
   */
  async update(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    set: Readonly<Record<string, unknown>>,
    guard?: (bind: (value: unknown) => string) => string,
  ): Promise<boolean> {
    const values: unknown[] = [id, tenant.organizationId, tenant.mode];
    const bind = (value: unknown) => `$${values.push(value)}`;
    const { rows } = this.description;
    const columns = Object.entries(set).map(([column, value]) => {
      const time = value === NOW;
      const bound = rows.bound(column, time ? null : value);
      return `${column} = ${time ? 'now()' : bind(bound)}`;
    });
    const written = await this.write(
      tx,
      tenant,
      `UPDATE ${this.description.table} SET ${columns.join(', ')}
        WHERE id = $1 AND organization_id = $2 AND mode = $3${guard ? ` AND ${guard(bind)}` : ''}`,
      values,
    );
    return written > 0;
  }

  /**
   * Stores the work `failed`: with `onlyRunning`, only while it is still
   * running (a worker's step, which may find it cancelled meanwhile); else
   * whatever its state (the caller holds the row and has checked it). The
   * seed of the engine's run is kept when given. Whether it wrote.
   */
  async markFailed(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    failure: StoredFailure,
    options: { onlyRunning?: boolean; engineSeed?: string | null } = {},
  ): Promise<boolean> {
    const hasMessage = this.description.rows.columns.includes('failure_message');
    return this.update(
      tx,
      tenant,
      id,
      {
        status: 'failed',
        failure_reason: failure.reason,
        ...(hasMessage ? { failure_message: failure.message ?? null } : {}),
        completed_at: failure.failedAt,
        updated_at: failure.failedAt,
        event_sequence: failure.sequence,
        ...(options.engineSeed === undefined ? {} : { engine_seed: options.engineSeed }),
      },
      options.onlyRunning ? () => this.isRunning : undefined,
    );
  }

  /**
   * Runs a state change of one piece of work in a transaction that holds its
   * row (FOR UPDATE), handing `change` the sequence number its next event
   * takes. Work deleted meanwhile has nothing left to move on: false.
   */
  transitionWithSequence(
    tenant: Tenant,
    id: string,
    change: (tx: Transaction, sequence: number) => Promise<boolean>,
  ): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const [row] = await tx.rows<{ event_sequence: number }>(
        `SELECT event_sequence FROM ${this.description.table}
          WHERE id = $1 AND organization_id = $2 AND mode = $3 FOR UPDATE`,
        [id, tenant.organizationId, tenant.mode],
      );
      if (!row) return false;
      return change(tx, row.event_sequence + 1);
    });
  }

  /**
   * Takes the tenant's lock on its count of running work until `tx` ends,
   * then counts it, stopping at `atMost` (the check costs the same however
   * much is running). Concurrent creates serialise on the lock, and each
   * count (a fresh snapshot once it is granted) sees every create committed
   * before it.
   */
  async countRunningLocked(tx: Transaction, tenant: Tenant, atMost: number): Promise<number> {
    const { table, running } = this.description;
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `${table}:${tenant.organizationId}:${tenant.mode}`,
    ]);
    const [{ count }] = (await tx.rows<{ count: number }>(
      `SELECT count(*)::int AS count FROM (
         SELECT 1 FROM ${table} WHERE organization_id = $1 AND mode = $2
            AND status = ANY($3) LIMIT $4) AS running`,
      [tenant.organizationId, tenant.mode, running, atMost],
    )) as [{ count: number }];
    return count;
  }

  /** When the first of the tenant's running work is expected to finish; null when none says. */
  async nextCompletion(tenant: Tenant, on: Queryable = this.sql): Promise<Date | null> {
    const { table, running } = this.description;
    const [{ next_done }] = (await on.rows<{ next_done: Date | null }>(
      `SELECT min(estimated_completion) AS next_done FROM ${table}
        WHERE organization_id = $1 AND mode = $2 AND status = ANY($3)`,
      [tenant.organizationId, tenant.mode, running],
    )) as [{ next_done: Date | null }];
    return next_done;
  }

  /** Unfinished work the worker runs, unchanged since `changedBefore`, oldest change first. */
  async staleAcrossTenants(
    changedBefore: Date,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<S[]> {
    const swept = this.described('swept');
    const rows = await on.rows<Record<string, unknown>>(
      `SELECT ${swept.selectList} FROM ${this.description.table}
        WHERE ${this.isRunning} AND updated_at < $1 AND engine <> 'analyst'
        ORDER BY updated_at LIMIT $2`,
      [changedBefore, limit],
    );
    return rows.map((row) => swept.fromRow(row));
  }

  /**
   * Every unfinished piece of work the worker runs that no one has changed
   * since the first page was read, a page at a time (recovery after Redis
   * lost its data).
   */
  unfinishedAcrossTenants(): UnfinishedPages<S & UnfinishedWork> {
    const swept = this.described('swept');
    const pages = unfinishedWorkPages<Record<string, unknown> & UnfinishedWork>(this.sql, {
      columns: swept.selectList,
      table: this.description.table,
      where: `${this.isRunning} AND engine <> 'analyst'`,
      orderBy: 'updated_at',
      changedBefore: 'updated_at',
    });
    return async (after, pageSize) =>
      (await pages(after, pageSize)).map((row) => ({
        ...swept.fromRow(row),
        position: row.position,
      }));
  }

  /** v1's offset page of the tenant's work, newest first, with the exact total. */
  list(
    tenant: Tenant,
    filter: Q,
    page: { limit: number; offset: number },
  ): Promise<{ records: W[]; total: number }> {
    const conditions = this.described('listConditions');
    return this.lists.list(tenant, () => conditions(tenant, filter), page);
  }

  /** v2's keyset page of the tenant's work, newest first. */
  page(tenant: Tenant, filter: Q, request: PageRequest): Promise<KeysetPage<W>> {
    return this.lists.page(tenant, this.described('listConditions')(tenant, filter), request);
  }

  /** Completed work as pattern recognition reads it, newest first, at most `limit`. */
  finishedWork(
    tenant: Tenant,
    selection: FinishedWorkSelection,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<FinishedWork[]> {
    const { latitude, longitude, type } = this.described('finished');
    return on.rows<FinishedWork>(
      `SELECT id, created_at AS "createdAt", ${latitude} AS latitude, ${longitude} AS longitude,
              COALESCE(results->'descriptors', '[]'::jsonb) AS descriptors
         FROM ${this.description.table}
        WHERE organization_id = $1 AND mode = $2 AND status = 'completed'
          AND ($3::uuid[] IS NULL OR id = ANY($3)) AND ($4::text IS NULL OR ${type} = $4)
          AND ($5::timestamptz IS NULL OR created_at >= $5)
          AND ($6::timestamptz IS NULL OR created_at <= $6)
        ORDER BY created_at DESC, id DESC LIMIT $7`,
      [
        tenant.organizationId,
        tenant.mode,
        selection.ids ?? null,
        selection.type ?? null,
        selection.from ?? null,
        selection.to ?? null,
        limit,
      ],
    );
  }

  /** A part of the description the caller needs; a kind that lacks it does not offer the call. */
  private described<K extends 'listConditions' | 'finished' | 'swept'>(
    part: K,
  ): NonNullable<WorkTableDescription<W, F, S, Q>[K]> {
    const value = this.description[part];
    if (!value) throw new Error(`${this.description.table} describes no ${part}`);
    return value as NonNullable<WorkTableDescription<W, F, S, Q>[K]>;
  }
}
