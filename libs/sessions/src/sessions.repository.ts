import { Injectable } from '@nestjs/common';
import type { Mode, SessionStatus, SessionType, Tenant } from '#common';
import {
  rowMapping,
  Sql,
  tenantConditions,
  type JsonObject,
  type Queryable,
  type SqlConditions,
  type Transaction,
} from '#database';
import { sessionCase, WorkCasesRepository, type FinishedSession } from '#history';
import { NOW, WORK_COLUMNS, WorkTable } from '#work';
import type { SessionEntity } from './entities/session.entity.js';

type SessionRow = Record<string, unknown>;

/** The columns of `sessions` in one order, shared by the insert and every select. */
const SESSION = rowMapping<SessionEntity, string>(
  'sessions',
  {
    ...WORK_COLUMNS,
    type: 'type',
    target: 'target',
    modality: 'modality',
    duration_minutes: 'durationMinutes',
    privacy_level: 'privacyLevel',
    progress: 'progress',
    results: 'results',
    confidence_score: 'confidenceScore',
    analyst_id: 'analystId',
    started_at: 'startedAt',
    estimated_completion: 'estimatedCompletion',
    analyst_count: 'analystCount',
    merged_from: 'mergedFrom',
  },
  ['results'],
);

/** What every write of `sessions` returns: the columns a finished session's history case reads. */
const SESSION_CASE = SESSION.only<FinishedSession>([
  'id',
  'organization_id',
  'mode',
  'type',
  'target',
  'modality',
  'duration_minutes',
  'privacy_level',
  'status',
  'results',
  'confidence_score',
  'analyst_id',
  'failure_reason',
  'updated_at',
  'completed_at',
]);

/** Statuses in which a session holds a place of the plan's concurrent sessions. */
export const SESSION_RUNNING_STATUSES: readonly SessionStatus[] = ['initiated', 'in_progress'];

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

/** The columns the worker's sweeps read. */
const SWEPT = rowMapping<
  RunningSession,
  'id' | 'organization_id' | 'mode' | 'status' | 'updated_at'
>('sessions', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  status: 'status',
  updated_at: 'updatedAt',
});

/**
 * The `sessions` table: what every kind of work's table has (WorkTable),
 * and what only sessions need. Every method takes the tenant and puts it in each
 * statement; what crosses tenants on purpose (the worker's sweeps, a public
 * session shared read-only) ends in `AcrossTenants`. Every write that can
 * finish or delete a session writes or forgets its history case in the same
 * transaction (libs/history's WorkCasesRepository).
 */
@Injectable()
export class SessionsRepository extends WorkTable<
  SessionEntity,
  FinishedSession,
  RunningSession,
  SessionFilter
> {
  constructor(sql: Sql, cases: WorkCasesRepository) {
    super(sql, cases, {
      table: 'sessions',
      rows: SESSION,
      caseRows: SESSION_CASE,
      toCase: sessionCase,
      running: SESSION_RUNNING_STATUSES,
      swept: SWEPT,
      reads: 'replicas',
      listConditions,
      finished: {
        latitude: "(results->'coordinates'->>'latitude')::float8",
        longitude: "(results->'coordinates'->>'longitude')::float8",
        type: 'type',
      },
    });
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

  /** An initiated session starts its engine's run; false when it is no longer initiated. */
  markStarted(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    start: { startedAt: Date; engineVersion: string; seed: string | null; sequence: number },
  ): Promise<boolean> {
    const set = {
      status: 'in_progress',
      started_at: start.startedAt,
      engine_version: start.engineVersion,
      engine_seed: start.seed,
      event_sequence: start.sequence,
      updated_at: NOW,
    };
    return this.update(tx, tenant, id, set, () => `status = 'initiated'`);
  }

  /** A new analyst session was tasked to people: in progress from `startedAt` until the deadline. */
  async markTasked(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    start: { startedAt: Date; engineVersion: string; deadline: Date; sequence: number },
  ): Promise<void> {
    await this.update(tx, tenant, id, {
      status: 'in_progress',
      started_at: start.startedAt,
      engine_version: start.engineVersion,
      estimated_completion: start.deadline,
      event_sequence: start.sequence,
      updated_at: start.startedAt,
    });
  }

  /** An in-progress session moves forward to `progress`; false when it is not in progress or already there. */
  recordProgress(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    progress: number,
    sequence: number,
  ): Promise<boolean> {
    const set = { progress, event_sequence: sequence, updated_at: NOW };
    return this.update(tx, tenant, id, set, movesForward(progress));
  }

  /** The engine's run completes an in-progress session; false when it is not in progress or already there. */
  markCompleted(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    completion: SessionCompletion,
  ): Promise<boolean> {
    const set = {
      progress: completion.progress,
      event_sequence: completion.sequence,
      status: 'completed',
      completed_at: completion.completedAt,
      results: completion.results,
      confidence_score: completion.confidenceScore,
      analyst_id: completion.analystId,
      evidence: completion.evidence,
      updated_at: NOW,
    };
    return this.update(tx, tenant, id, set, movesForward(completion.progress));
  }

  /** The analysts' combined submissions complete the session (it holds no engine seed). */
  async markCompletedBySubmissions(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    completion: Omit<SessionCompletion, 'progress'>,
  ): Promise<void> {
    await this.update(tx, tenant, id, {
      status: 'completed',
      progress: 100,
      completed_at: completion.completedAt,
      results: completion.results,
      confidence_score: completion.confidenceScore,
      analyst_id: completion.analystId,
      evidence: completion.evidence,
      event_sequence: completion.sequence,
      engine_seed: null,
      updated_at: completion.completedAt,
    });
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

/**
 * The conditions of a list of sessions, newest first (v1 filters status and
 * type; v2 more). Each filter has an index that leads with it after the
 * tenant (status, analyst, confidence score; created_at is the order) and
 * INCLUDEs the other filtered columns, so PostgreSQL picks the narrowest and
 * checks the rest inside the index (migration 1764057600000).
 */
function listConditions(tenant: Tenant, filter: SessionFilter): SqlConditions {
  const where = tenantConditions(tenant);
  if (filter.status) where.and(`status = ${where.param(filter.status)}`);
  if (filter.type) where.and(`type = ${where.param(filter.type)}`);
  if (filter.createdAfter) where.and(`created_at > ${where.param(filter.createdAfter)}`);
  if (filter.analystId) where.and(`analyst_id = ${where.param(filter.analystId)}`);
  for (const { operator, value } of filter.confidenceScore ?? []) {
    where.and(`confidence_score ${SQL_COMPARISON[operator]} ${where.param(value)}`);
  }
  return where;
}

/** A guard of a session's step: in progress, and not yet at `progress` (a repeated step writes nothing). */
function movesForward(progress: number) {
  return (bind: (value: unknown) => string) =>
    `status = 'in_progress' AND progress < ${bind(progress)}`;
}
