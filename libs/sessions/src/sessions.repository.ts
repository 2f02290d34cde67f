import { Injectable } from '@nestjs/common';
import type { Mode, SessionStatus, SessionType, Tenant } from '#common';
import {
  keysetPage,
  rowMapping,
  Sql,
  SqlConditions,
  tenantScope,
  unfinishedWorkPages,
  type JsonObject,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import { sessionCase, WorkCasesRepository, type FinishedSession } from '#history';
import type { UnfinishedPages, UnfinishedWork } from '#queue';
import type { SessionEntity } from './entities/session.entity.js';

type SessionColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'type'
  | 'target'
  | 'modality'
  | 'duration_minutes'
  | 'privacy_level'
  | 'status'
  | 'progress'
  | 'engine'
  | 'engine_version'
  | 'engine_seed'
  | 'results'
  | 'confidence_score'
  | 'analyst_id'
  | 'evidence'
  | 'failure_reason'
  | 'event_sequence'
  | 'created_at'
  | 'updated_at'
  | 'started_at'
  | 'completed_at'
  | 'estimated_completion'
  | 'batch_id'
  | 'analyst_count'
  | 'merged_from';

type SessionRow = Record<SessionColumn, unknown>;

/** The columns of `sessions` in one order, shared by the insert and every select. */
const SESSION = rowMapping<SessionEntity, SessionColumn>(
  'sessions',
  {
    id: 'id',
    organization_id: 'organizationId',
    mode: 'mode',
    type: 'type',
    target: 'target',
    modality: 'modality',
    duration_minutes: 'durationMinutes',
    privacy_level: 'privacyLevel',
    status: 'status',
    progress: 'progress',
    engine: 'engine',
    engine_version: 'engineVersion',
    engine_seed: 'engineSeed',
    results: 'results',
    confidence_score: 'confidenceScore',
    analyst_id: 'analystId',
    evidence: 'evidence',
    failure_reason: 'failureReason',
    event_sequence: 'eventSequence',
    created_at: 'createdAt',
    updated_at: 'updatedAt',
    started_at: 'startedAt',
    completed_at: 'completedAt',
    estimated_completion: 'estimatedCompletion',
    batch_id: 'batchId',
    analyst_count: 'analystCount',
    merged_from: 'mergedFrom',
  },
  ['results'],
);

type SessionCaseColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'type'
  | 'target'
  | 'modality'
  | 'duration_minutes'
  | 'privacy_level'
  | 'status'
  | 'results'
  | 'confidence_score'
  | 'analyst_id'
  | 'failure_reason'
  | 'updated_at'
  | 'completed_at';

/** What every write of `sessions` returns: the columns a finished session's history case reads. */
const SESSION_CASE = rowMapping<FinishedSession, SessionCaseColumn>('sessions', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  type: 'type',
  target: 'target',
  modality: 'modality',
  duration_minutes: 'durationMinutes',
  privacy_level: 'privacyLevel',
  status: 'status',
  results: 'results',
  confidence_score: 'confidenceScore',
  analyst_id: 'analystId',
  failure_reason: 'failureReason',
  updated_at: 'updatedAt',
  completed_at: 'completedAt',
});

const SELECT_SESSION = `SELECT ${SESSION.selectList} FROM sessions
  WHERE id = $1 AND organization_id = $2 AND mode = $3`;

/** Statuses in which a session holds a place of the plan's concurrent sessions. */
const RUNNING: readonly SessionStatus[] = ['initiated', 'in_progress'];

/** A comparison of `confidence_score` in a version 2 list filter. */
export const SCORE_OPERATORS = ['eq', 'gt', 'gte', 'lt', 'lte'] as const;
export type ScoreOperator = (typeof SCORE_OPERATORS)[number];
const SQL_COMPARISON: Record<ScoreOperator, string> = {
  eq: '=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

/** The version 2 list filters, in any combination. */
export interface SessionFilter {
  status?: SessionStatus | undefined;
  type?: SessionType | undefined;
  confidenceScore?: { operator: ScoreOperator; value: number }[] | undefined;
  createdAfter?: Date | undefined;
  analystId?: string | undefined;
}

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

/** A session the worker runs that is not finished: what its sweeps re-enqueue it by. */
export interface RunningSession {
  id: string;
  organizationId: string;
  mode: Mode;
  status: 'initiated' | 'in_progress';
  updatedAt: Date;
}

/** What an engine's run records when a session completes. */
export interface SessionCompletion {
  progress: number;
  completedAt: Date;
  results: JsonObject;
  confidenceScore: number | null;
  analystId: string | null;
  evidence: string | null;
  sequence: number;
}

/** A slice of the scale-test seeding (`npm run db:seed-sessions`): rows `from`..`from + rows` of `of`. */
export interface SeedChunk {
  from: number;
  rows: number;
  of: number;
  /** The newest this many of all are in progress. */
  running: number;
  /** What every completed one holds as results. */
  results: JsonObject;
}

interface RunningRow {
  id: string;
  organization_id: string;
  mode: Mode;
  status: 'initiated' | 'in_progress';
  updated_at: Date;
}

/**
 * The `sessions` table. Every method takes the tenant and puts it in each
 * statement; what crosses tenants on purpose (the worker's sweeps, a public
 * session shared read-only) ends in `AcrossTenants`. Every write that can
 * finish or delete a session writes or forgets its history case in the same
 * transaction (libs/history's WorkCasesRepository).
 */
@Injectable()
export class SessionsRepository {
  constructor(
    private readonly sql: Sql,
    private readonly cases: WorkCasesRepository,
  ) {}

  async insert(tx: Transaction, tenant: Tenant, session: SessionEntity): Promise<void> {
    const stored = { ...session, organizationId: tenant.organizationId, mode: tenant.mode };
    await tx.query(SESSION.insert, SESSION.toRow(stored));
    await this.cases.recordWritten(tx, tenant, [stored], sessionCase);
  }

  /**
   * Runs an INSERT or UPDATE of the tenant's sessions and writes the history
   * cases of those it left finished; how many rows it wrote.
   */
  private async write(
    tx: Transaction,
    tenant: Tenant,
    statement: string,
    parameters: readonly unknown[],
  ): Promise<number> {
    const rows = await tx.rows<Record<SessionCaseColumn, unknown>>(
      `${statement} RETURNING ${SESSION_CASE.selectList}`,
      parameters,
    );
    const written = rows.map((row) => SESSION_CASE.fromRow(row));
    await this.cases.recordWritten(tx, tenant, written, sessionCase);
    return written.length;
  }

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<SessionEntity | null> {
    const [row] = await on.rows<SessionRow>(SELECT_SESSION, [
      id,
      tenant.organizationId,
      tenant.mode,
    ]);
    return row ? SESSION.fromRow(row) : null;
  }

  /** The session, its row held until `tx` ends; null when there is none. */
  async findForUpdate(tx: Transaction, tenant: Tenant, id: string): Promise<SessionEntity | null> {
    const [row] = await tx.rows<SessionRow>(`${SELECT_SESSION} FOR UPDATE`, [
      id,
      tenant.organizationId,
      tenant.mode,
    ]);
    return row ? SESSION.fromRow(row) : null;
  }

  /** The tenant's sessions with these ids (uuids), in no particular order. */
  async findMany(
    tenant: Tenant,
    ids: readonly string[],
    on: Queryable = this.sql,
  ): Promise<SessionEntity[]> {
    const rows = await on.rows<SessionRow>(
      `SELECT ${SESSION.selectList} FROM sessions
        WHERE id = ANY($1::uuid[]) AND organization_id = $2 AND mode = $3`,
      [ids, tenant.organizationId, tenant.mode],
    );
    return rows.map((row) => SESSION.fromRow(row));
  }

  /** A `public` session of any organisation, for read-only sharing. */
  async findPublicAcrossTenants(
    id: string,
    on: Queryable = this.sql,
  ): Promise<SessionEntity | null> {
    const [row] = await on.rows<SessionRow>(
      `SELECT ${SESSION.selectList} FROM sessions WHERE id = $1 AND privacy_level = 'public'`,
      [id],
    );
    return row ? SESSION.fromRow(row) : null;
  }

  /** The sessions of a batch, in creation order. */
  async batchItems(
    tenant: Tenant,
    batchId: string,
    on: Queryable = this.sql,
  ): Promise<SessionEntity[]> {
    const rows = await on.rows<SessionRow>(
      `SELECT ${SESSION.selectList} FROM sessions
        WHERE batch_id = $1 AND organization_id = $2 AND mode = $3 ORDER BY created_at, id`,
      [batchId, tenant.organizationId, tenant.mode],
    );
    return rows.map((row) => SESSION.fromRow(row));
  }

  /**
   * Completed sessions created before `before` whose target, whitespace
   * collapsed and lower-cased, is `targetKey`, newest first
   * (sessions_tenant_target_key_idx).
   */
  async completedOnTarget(
    tenant: Tenant,
    targetKey: string,
    before: Date,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<SessionEntity[]> {
    const rows = await on.rows<SessionRow>(
      `SELECT ${SESSION.selectList} FROM sessions
        WHERE organization_id = $1 AND mode = $2 AND status = 'completed'
          AND lower(btrim(regexp_replace(target, '\\s+', ' ', 'g'))) = $3 AND created_at < $4
        ORDER BY created_at DESC LIMIT $5`,
      [tenant.organizationId, tenant.mode, targetKey, before, limit],
    );
    return rows.map((row) => SESSION.fromRow(row));
  }

  /** Completed sessions as pattern recognition reads them, newest first, at most `limit`. */
  async finishedWork(
    tenant: Tenant,
    selection: FinishedWorkSelection,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<FinishedWork[]> {
    return on.rows<FinishedWork>(
      `SELECT id, created_at AS "createdAt",
              (results->'coordinates'->>'latitude')::float8 AS latitude,
              (results->'coordinates'->>'longitude')::float8 AS longitude,
              COALESCE(results->'descriptors', '[]'::jsonb) AS descriptors
         FROM sessions
        WHERE organization_id = $1 AND mode = $2 AND status = 'completed'
          AND ($3::uuid[] IS NULL OR id = ANY($3)) AND ($4::text IS NULL OR type = $4)
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

  /**
   * An offset page of the tenant's sessions, newest first, optionally of one
   * status and type, and the total matching. The (organisation, mode, status,
   * created_at) and (organisation, mode, created_at) indexes serve both
   * orders of filtering.
   */
  async list(
    tenant: Tenant,
    query: { status?: SessionStatus | undefined; type?: SessionType | undefined },
    page: { limit: number; offset: number },
    on: Queryable = this.sql,
  ): Promise<{ records: SessionEntity[]; total: number }> {
    const filters = [tenant.organizationId, tenant.mode, query.status ?? null, query.type ?? null];
    const where = `organization_id = $1 AND mode = $2
      AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR type = $4)`;
    const [rows, [{ total }]] = await Promise.all([
      on.rows<SessionRow>(
        `SELECT ${SESSION.selectList} FROM sessions WHERE ${where}
          ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`,
        [...filters, page.limit, page.offset],
      ),
      on.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM sessions WHERE ${where}`,
        filters,
      ) as Promise<[{ total: number }]>,
    ]);
    return { records: rows.map((row) => SESSION.fromRow(row)), total };
  }

  /**
   * A keyset page of the tenant's sessions, newest first, with the version 2
   * filters. Each filter has an index that leads with it after the tenant
   * (status, analyst, confidence score; created_at is the order) and
   * INCLUDEs the other filtered columns, so PostgreSQL picks the narrowest
   * and checks the rest inside the index (migration 1764057600000).
   */
  async page(
    tenant: Tenant,
    filter: SessionFilter,
    request: PageRequest,
    on: Queryable = this.sql,
  ): Promise<KeysetPage<SessionEntity>> {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param(tenant.organizationId)}`);
    where.and(`mode = ${where.param(tenant.mode)}`);
    if (filter.status) where.and(`status = ${where.param(filter.status)}`);
    if (filter.type) where.and(`type = ${where.param(filter.type)}`);
    if (filter.createdAfter) where.and(`created_at > ${where.param(filter.createdAfter)}`);
    if (filter.analystId) where.and(`analyst_id = ${where.param(filter.analystId)}`);
    for (const { operator, value } of filter.confidenceScore ?? []) {
      where.and(`confidence_score ${SQL_COMPARISON[operator]} ${where.param(value)}`);
    }
    return keysetPage(
      (text, parameters) => on.rows(text, parameters),
      {
        table: 'sessions',
        where,
        scope: tenantScope(tenant),
        // The page's ids and rows in one statement.
        readRows: async (idsSql, parameters) =>
          (
            await on.rows<SessionRow>(
              `SELECT ${SESSION.selectList} FROM sessions WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map((row) => SESSION.fromRow(row)),
      },
      request,
    );
  }

  /**
   * Runs a state change of one session in a transaction that holds its row
   * (FOR UPDATE), handing `change` the sequence number its next event takes.
   * A session deleted meanwhile has nothing left to move on: false.
   */
  transitionWithSequence(
    tenant: Tenant,
    id: string,
    change: (tx: Transaction, sequence: number) => Promise<boolean>,
  ): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const [row] = await tx.rows<{ event_sequence: number }>(
        `SELECT event_sequence FROM sessions
          WHERE id = $1 AND organization_id = $2 AND mode = $3 FOR UPDATE`,
        [id, tenant.organizationId, tenant.mode],
      );
      if (!row) return false;
      return change(tx, row.event_sequence + 1);
    });
  }

  /** An initiated session starts its engine's run; false when it is no longer initiated. */
  async markStarted(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    start: { startedAt: Date; engineVersion: string; seed: string | null; sequence: number },
  ): Promise<boolean> {
    const written = await this.write(
      tx,
      tenant,
      `UPDATE sessions SET status = 'in_progress', started_at = $2, engine_version = $3,
              engine_seed = $4, event_sequence = $5, updated_at = now()
        WHERE id = $1 AND status = 'initiated' AND organization_id = $6 AND mode = $7`,
      [
        id,
        start.startedAt,
        start.engineVersion,
        start.seed,
        start.sequence,
        tenant.organizationId,
        tenant.mode,
      ],
    );
    return written > 0;
  }

  /** A new analyst session was tasked to people: in progress from `startedAt` until the deadline. */
  async markTasked(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    start: { startedAt: Date; engineVersion: string; deadline: Date; sequence: number },
  ): Promise<void> {
    await this.write(
      tx,
      tenant,
      `UPDATE sessions SET status = 'in_progress', started_at = $2, engine_version = $3,
              estimated_completion = $4, event_sequence = $5, updated_at = $2
        WHERE id = $1 AND organization_id = $6 AND mode = $7`,
      [
        id,
        start.startedAt,
        start.engineVersion,
        start.deadline,
        start.sequence,
        tenant.organizationId,
        tenant.mode,
      ],
    );
  }

  /** An in-progress session moves forward to `progress`; false when it is not in progress or already there. */
  async recordProgress(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    progress: number,
    sequence: number,
  ): Promise<boolean> {
    const written = await this.write(
      tx,
      tenant,
      `UPDATE sessions SET progress = $2, event_sequence = $3, updated_at = now()
        WHERE id = $1 AND status = 'in_progress' AND progress < $2
          AND organization_id = $4 AND mode = $5`,
      [id, progress, sequence, tenant.organizationId, tenant.mode],
    );
    return written > 0;
  }

  /** The engine's run completes an in-progress session; false when it is not in progress or already there. */
  async markCompleted(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    completion: SessionCompletion,
  ): Promise<boolean> {
    const written = await this.write(
      tx,
      tenant,
      `UPDATE sessions SET progress = $2, event_sequence = $3, status = 'completed',
              completed_at = $4, results = $5, confidence_score = $6, analyst_id = $7,
              evidence = $8, updated_at = now()
        WHERE id = $1 AND status = 'in_progress' AND progress < $2
          AND organization_id = $9 AND mode = $10`,
      [
        id,
        completion.progress,
        completion.sequence,
        completion.completedAt,
        completion.results,
        completion.confidenceScore,
        completion.analystId,
        completion.evidence,
        tenant.organizationId,
        tenant.mode,
      ],
    );
    return written > 0;
  }

  /** The analysts' combined submissions complete the session (it holds no engine seed). */
  async markCompletedBySubmissions(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    completion: Omit<SessionCompletion, 'progress'>,
  ): Promise<void> {
    await this.write(
      tx,
      tenant,
      `UPDATE sessions SET status = 'completed', progress = 100, completed_at = $2, results = $3,
              confidence_score = $4, analyst_id = $5, evidence = $6, event_sequence = $7,
              engine_seed = NULL, updated_at = $2
        WHERE id = $1 AND organization_id = $8 AND mode = $9`,
      [
        id,
        completion.completedAt,
        completion.results,
        completion.confidenceScore,
        completion.analystId,
        completion.evidence,
        completion.sequence,
        tenant.organizationId,
        tenant.mode,
      ],
    );
  }

  /** An engine's run failed the session; false when it had already finished. */
  async markFailed(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    failure: { reason: string; failedAt: Date; sequence: number },
  ): Promise<boolean> {
    const written = await this.write(
      tx,
      tenant,
      `UPDATE sessions SET status = 'failed', failure_reason = $2, completed_at = $3,
              event_sequence = $4, updated_at = now()
        WHERE id = $1 AND status IN ('initiated', 'in_progress')
          AND organization_id = $5 AND mode = $6`,
      [id, failure.reason, failure.failedAt, failure.sequence, tenant.organizationId, tenant.mode],
    );
    return written > 0;
  }

  /**
   * A session whose row the caller holds, checked unfinished, ends `failed`
   * for `reason` (cancelled, deadline_exceeded) at `failedAt`.
   */
  async markEnded(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    failure: { reason: 'cancelled' | 'deadline_exceeded'; failedAt: Date; sequence: number },
  ): Promise<void> {
    await this.write(
      tx,
      tenant,
      `UPDATE sessions SET status = 'failed', failure_reason = $4, completed_at = $2,
              event_sequence = $3, updated_at = $2
        WHERE id = $1 AND organization_id = $5 AND mode = $6`,
      [id, failure.failedAt, failure.sequence, failure.reason, tenant.organizationId, tenant.mode],
    );
  }

  /** Deletes the session; its creation time (the events to redact start there), or null when there was none. */
  async delete(tx: Transaction, tenant: Tenant, id: string): Promise<Date | null> {
    const [row] = await tx.rows<{ created_at: Date }>(
      `DELETE FROM sessions WHERE id = $1 AND organization_id = $2 AND mode = $3
         RETURNING created_at`,
      [id, tenant.organizationId, tenant.mode],
    );
    if (!row) return null;
    await this.cases.forget(tx, tenant, [id]);
    return row.created_at;
  }

  /**
   * Takes the tenant's lock on its count of running sessions until `tx`
   * ends, then counts them, stopping at `atMost` (the check costs the same
   * however many are running). Concurrent creates serialise on the lock, and
   * each count (a fresh snapshot once it is granted) sees every create
   * committed before it.
   */
  async countRunningLocked(tx: Transaction, tenant: Tenant, atMost: number): Promise<number> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `sessions:${tenant.organizationId}:${tenant.mode}`,
    ]);
    const [{ running }] = (await tx.rows<{ running: number }>(
      `SELECT count(*)::int AS running FROM (
         SELECT 1 FROM sessions WHERE organization_id = $1 AND mode = $2
            AND status = ANY($3) LIMIT $4) AS running`,
      [tenant.organizationId, tenant.mode, RUNNING, atMost],
    )) as [{ running: number }];
    return running;
  }

  /** When the first of the tenant's running sessions is expected to finish; null when none says. */
  async nextCompletion(tenant: Tenant, on: Queryable = this.sql): Promise<Date | null> {
    const [{ next_done }] = (await on.rows<{ next_done: Date | null }>(
      `SELECT min(estimated_completion) AS next_done FROM sessions
        WHERE organization_id = $1 AND mode = $2 AND status = ANY($3)`,
      [tenant.organizationId, tenant.mode, RUNNING],
    )) as [{ next_done: Date | null }];
    return next_done;
  }

  /** Unfinished sessions the worker runs, unchanged since `changedBefore`, oldest change first. */
  async staleAcrossTenants(
    changedBefore: Date,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<RunningSession[]> {
    const rows = await on.rows<RunningRow>(
      `SELECT id, organization_id, mode, status, updated_at FROM sessions
        WHERE status IN ('initiated', 'in_progress') AND updated_at < $1 AND engine <> 'analyst'
        ORDER BY updated_at LIMIT $2`,
      [changedBefore, limit],
    );
    return rows.map(runningFromRow);
  }

  /**
   * Every unfinished session the worker runs that no one has changed since
   * the first page was read, a page at a time (recovery after Redis lost its data).
   */
  unfinishedAcrossTenants(): UnfinishedPages<RunningSession & UnfinishedWork> {
    const pages = unfinishedWorkPages<RunningRow & UnfinishedWork>(this.sql, {
      columns: 'id, organization_id, mode, status, updated_at',
      table: 'sessions',
      where: `status IN ('initiated', 'in_progress') AND engine <> 'analyst'`,
      orderBy: 'updated_at',
      changedBefore: 'updated_at',
    });
    return async (after, pageSize) =>
      (await pages(after, pageSize)).map((row) => ({
        ...runningFromRow(row),
        position: row.position,
      }));
  }

  /**
   * Scale-test rows for the tenant (`npm run db:seed-sessions`), in one
   * INSERT … SELECT over generate_series: created in order over the past
   * year (the newest last, as the API appends them, so the table is as
   * correlated with time as a real one), ids UUIDv7 of their creation time;
   * the `running` newest of all in progress, the rest 90 % completed and
   * 10 % failed.
   */
  async seed(tx: Transaction, tenant: Tenant, chunk: SeedChunk): Promise<void> {
    await this.write(
      tx,
      tenant,
      `WITH drawn AS (
         SELECT i, now() - interval '365 days' * (1 - i::float8 / $6) AS created_at, random() AS r,
                (random() + random() + random()) / 3 AS score, 1 + floor(random() * 50)::int AS analyst
           FROM generate_series($7::int + 1, $7::int + $3::int) AS i
       ), shaped AS (
         SELECT *, CASE WHEN i > $6 - $4 THEN 'in_progress' WHEN r < 0.9 THEN 'completed' ELSE 'failed' END AS status
           FROM drawn
       )
       INSERT INTO sessions (id, organization_id, mode, type, target, modality, duration_minutes,
                             privacy_level, status, progress, engine, engine_version, results,
                             confidence_score, analyst_id, evidence, failure_reason, event_sequence,
                             created_at, updated_at, started_at, completed_at, estimated_completion,
                             analyst_count)
       SELECT (lpad(to_hex(floor(extract(epoch FROM created_at) * 1000)::bigint), 12, '0') || '7'
                 || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))::uuid,
              $1, $2, (ARRAY['remote_viewing', 'dowsing', 'automatic_writing'])[1 + i % 3],
              'Seeded target ' || i, (ARRAY['visual', 'kinesthetic', 'auditory', NULL])[1 + i % 4],
              30, 'private', status,
              CASE status WHEN 'completed' THEN 100 WHEN 'failed' THEN 50 ELSE 40 END,
              'simulated', 'simulated-1.1.0',
              CASE WHEN status = 'completed' THEN $5::jsonb END,
              CASE WHEN status = 'completed' THEN round(score::numeric, 4) END,
              CASE WHEN status = 'completed' THEN 'analyst_sim_' || analyst END,
              CASE WHEN status = 'completed' THEN 'prior' END,
              CASE WHEN status = 'failed' THEN 'engine_failure' END,
              CASE status WHEN 'in_progress' THEN 6 ELSE 12 END,
              created_at, created_at + interval '6 seconds', created_at + interval '1 second',
              CASE WHEN status <> 'in_progress' THEN created_at + interval '6 seconds' END,
              created_at + interval '7 seconds', 1
         FROM shaped ORDER BY i`,
      [
        tenant.organizationId,
        tenant.mode,
        chunk.rows,
        chunk.running,
        JSON.stringify(chunk.results),
        chunk.of,
        chunk.from,
      ],
    );
  }

  /** Refreshes the table's statistics and visibility map after a bulk load (seeding). */
  async vacuumAcrossTenants(): Promise<void> {
    await this.sql.query('VACUUM ANALYZE sessions');
  }
}

function runningFromRow(row: RunningRow): RunningSession {
  return {
    id: row.id,
    organizationId: row.organization_id,
    mode: row.mode,
    status: row.status,
    updatedAt: row.updated_at,
  };
}
