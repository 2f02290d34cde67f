import { Injectable } from '@nestjs/common';
import type { Mode, Tenant } from '#common';
import {
  rowMapping,
  Sql,
  tenantConditions,
  type Queryable,
  type SqlConditions,
  type Transaction,
} from '#database';
import type {
  AnalysisPriority,
  AnalysisResultsData,
  AnalysisScoreDetails,
  AnalysisTargetType,
  AnalysisType,
  Evidence,
} from '#engines';
import { analysisCase, WorkCasesRepository, type FinishedAnalysis } from '#history';
import { NOW, WORK_COLUMNS, WorkTable } from '#work';
import type { AnalysisEntity, AnalysisStatus } from './entities/analysis.entity.js';

/** The columns of `analyses`, each with the entity field it maps to. */
const ANALYSIS = rowMapping<AnalysisEntity, string>(
  'analyses',
  {
    ...WORK_COLUMNS,
    target_type: 'targetType',
    analysis_type: 'analysisType',
    priority: 'priority',
    description: 'description',
    description_key: 'descriptionKey',
    reference_material: 'referenceMaterial',
    latitude: 'latitude',
    longitude: 'longitude',
    request_fingerprint: 'requestFingerprint',
    material: 'material',
    earlier_work: 'earlierWork',
    steps_done: 'stepsDone',
    steps: 'steps',
    results: 'results',
    score_details: 'scoreDetails',
    confidence_score: 'confidenceScore',
    failure_message: 'failureMessage',
    started_at: 'startedAt',
    estimated_completion: 'estimatedCompletion',
  },
  ['reference_material', 'material', 'earlier_work', 'results', 'score_details'],
);

/** What every write of `analyses` returns: the columns a finished analysis's history case reads. */
const ANALYSIS_CASE = ANALYSIS.only<FinishedAnalysis>([
  'id',
  'organization_id',
  'mode',
  'target_type',
  'analysis_type',
  'description',
  'latitude',
  'longitude',
  'status',
  'steps_done',
  'steps',
  'results',
  'score_details',
  'confidence_score',
  'failure_reason',
  'failure_message',
  'created_at',
  'updated_at',
  'completed_at',
]);

type AnalysisRow = Record<string, unknown>;

/** The columns the worker's sweeps read. */
const SWEPT = rowMapping<
  RunningAnalysis,
  'id' | 'organization_id' | 'mode' | 'priority' | 'status' | 'updated_at'
>('analyses', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  priority: 'priority',
  status: 'status',
  updated_at: 'updatedAt',
});

/** Statuses in which an analysis holds a place of the plan's concurrent analyses. */
export const ANALYSIS_RUNNING_STATUSES: readonly AnalysisStatus[] = ['queued', 'processing'];

export interface AnalysisFilter {
  status?: AnalysisStatus | undefined;
  targetType?: AnalysisTargetType | undefined;
  priority?: AnalysisPriority | undefined;
}

/** A completed analysis as earlier work on another: where it was, how sure, when it finished. */
export interface CompletedAnalysis {
  id: string;
  confidenceScore: number | null;
  completedAt: Date;
}

/** Which completed analyses count as earlier work on one: older than it, and not a resubmission of it. */
export interface EarlierThan {
  createdBefore: Date;
  requestFingerprint: string;
}

/** Queued and processing analyses of one priority, across the deployment. */
export interface QueueCount {
  priority: AnalysisPriority;
  status: 'queued' | 'processing';
  count: number;
}

/** Analyses of one type completed in a window, across the deployment. */
export interface Completions {
  analysisType: AnalysisType;
  completed: number;
  meanMs: number;
  firstAt: Date;
}

/** An analysis the worker runs that has not finished, as the sweepers re-enqueue it. */
export interface RunningAnalysis {
  id: string;
  organizationId: string;
  mode: Mode;
  priority: AnalysisPriority;
  status: 'queued' | 'processing';
  updatedAt: Date;
}

/** What the analyst engine stores when people are tasked with an analysis. */
export interface AnalystStart {
  startedAt: Date;
  engineVersion: string;
  estimatedCompletion: Date;
  steps: readonly string[];
  sequence: number;
}

/** What a completed analysis stores. */
export interface AnalysisCompletion {
  stepsDone: number;
  completedAt: Date;
  results: AnalysisResultsData;
  scoreDetails: AnalysisScoreDetails;
  evidence: Evidence;
  sequence: number;
}

/**
 * The `analyses` table. A tenant's reads and writes name its organisation
 * and mode; the worker's deployment-wide reads (estimates, sweeps, a job's
 * analysis by id) are the `…AcrossTenants` methods. Every write that can
 * finish or delete an analysis writes or forgets its history case in the
 * same transaction (libs/history's WorkCasesRepository).
 */
@Injectable()
export class AnalysesRepository extends WorkTable<
  AnalysisEntity,
  FinishedAnalysis,
  RunningAnalysis,
  AnalysisFilter
> {
  constructor(sql: Sql, cases: WorkCasesRepository) {
    super(sql, cases, {
      table: 'analyses',
      rows: ANALYSIS,
      caseRows: ANALYSIS_CASE,
      toCase: analysisCase,
      running: ANALYSIS_RUNNING_STATUSES,
      swept: SWEPT,
      reads: 'replicas',
      listConditions,
      finished: { latitude: 'latitude', longitude: 'longitude', type: 'target_type' },
    });
  }

  /** The analysis a job names by id alone; the row tells the worker its tenant. */
  async findAcrossTenants(id: string, on: Queryable = this.sql): Promise<AnalysisEntity | null> {
    const [row] = await on.rows<AnalysisRow>(
      `SELECT ${ANALYSIS.columns.join(', ')} FROM analyses WHERE id = $1`,
      [id],
    );
    return row ? ANALYSIS.fromRow(row) : null;
  }

  /** A queued analysis starts its plan; false when it is no longer queued. */
  start(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    start: { startedAt: Date; steps: readonly string[]; engineVersion: string; sequence: number },
  ): Promise<boolean> {
    const set = {
      status: 'processing',
      started_at: start.startedAt,
      steps: start.steps,
      engine_version: start.engineVersion,
      event_sequence: start.sequence,
      updated_at: NOW,
    };
    return this.update(tx, tenant, id, set, () => `status = 'queued'`);
  }

  /**
   * A processing analysis has done `stepsDone` steps, with what they gathered
   * (null: nothing new); false when it is not processing or already further.
   */
  async advance(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    step: {
      stepsDone: number;
      sequence: number;
      material: readonly object[] | null;
      earlierWork: readonly object[] | null;
    },
  ): Promise<boolean> {
    const written = await this.write(
      tx,
      tenant,
      `UPDATE analyses SET steps_done = $2, event_sequence = $3,
              material = COALESCE($4, material), earlier_work = COALESCE($5, earlier_work),
              updated_at = now()
        WHERE id = $1 AND organization_id = $6 AND mode = $7
          AND status = 'processing' AND steps_done < $2`,
      [
        id,
        step.stepsDone,
        step.sequence,
        step.material ? JSON.stringify(step.material) : null,
        step.earlierWork ? JSON.stringify(step.earlierWork) : null,
        tenant.organizationId,
        tenant.mode,
      ],
    );
    return written > 0;
  }

  /** A processing analysis completes with the engine's outcome; false when it is not processing. */
  complete(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    completion: AnalysisCompletion & { engineSeed: string },
  ): Promise<boolean> {
    const set = { ...completedColumns(completion), engine_seed: completion.engineSeed };
    return this.update(tx, tenant, id, set, () => `status = 'processing'`);
  }

  /** People were tasked with a new analysis: it is processing from now, due at their deadline. */
  async startAnalystWork(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    start: AnalystStart,
  ): Promise<void> {
    await this.update(tx, tenant, id, {
      status: 'processing',
      started_at: start.startedAt,
      engine_version: start.engineVersion,
      estimated_completion: start.estimatedCompletion,
      steps: start.steps,
      steps_done: 0,
      event_sequence: start.sequence,
      updated_at: start.startedAt,
    });
  }

  /** Progress of an analysis people are doing, as steps of its plan. */
  async setStepsDone(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    stepsDone: number,
    sequence: number,
  ): Promise<void> {
    const set = { steps_done: stepsDone, event_sequence: sequence, updated_at: NOW };
    await this.update(tx, tenant, id, set);
  }

  /** Stores people's completion whatever the state (the caller holds the row and has checked it). */
  async markCompleted(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    completion: AnalysisCompletion,
  ): Promise<void> {
    const set = { ...completedColumns(completion), engine_seed: null };
    await this.update(tx, tenant, id, { ...set, updated_at: completion.completedAt });
  }

  /**
   * Completed analyses of the tenant in a band of latitudes (the index's
   * range; the caller measures the true distance), with their coordinates.
   */
  async completedInBand(
    tenant: Tenant,
    band: { south: number; north: number },
    earlier: EarlierThan,
    on: Queryable = this.sql,
  ): Promise<(CompletedAnalysis & { latitude: number; longitude: number })[]> {
    const rows = await on.rows<CompletedRow & { latitude: number; longitude: number }>(
      `SELECT id, confidence_score, completed_at, latitude, longitude FROM analyses
        WHERE organization_id = $1 AND mode = $2 AND status = 'completed'
          AND latitude BETWEEN $3 AND $4 AND created_at < $5 AND request_fingerprint <> $6
        LIMIT 5000`,
      [
        tenant.organizationId,
        tenant.mode,
        band.south,
        band.north,
        earlier.createdBefore,
        earlier.requestFingerprint,
      ],
    );
    return rows.map((row) => ({
      ...completedFromRow(row),
      latitude: row.latitude,
      longitude: row.longitude,
    }));
  }

  /** The newest completed analyses of the tenant with that description key. */
  async completedWithDescription(
    tenant: Tenant,
    descriptionKey: string,
    earlier: EarlierThan,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<CompletedAnalysis[]> {
    const rows = await on.rows<CompletedRow>(
      `SELECT id, confidence_score, completed_at FROM analyses
        WHERE organization_id = $1 AND mode = $2 AND status = 'completed'
          AND description_key = $3 AND created_at < $4 AND request_fingerprint <> $5
        ORDER BY created_at DESC LIMIT $6`,
      [
        tenant.organizationId,
        tenant.mode,
        descriptionKey,
        earlier.createdBefore,
        earlier.requestFingerprint,
        limit,
      ],
    );
    return rows.map(completedFromRow);
  }

  /** Queued and processing analyses of the whole deployment, per priority and status. */
  async queueAcrossTenants(on: Queryable = this.sql): Promise<QueueCount[]> {
    const rows = await on.rows<{ priority: AnalysisPriority; status: string; count: number }>(
      `SELECT priority, status, count(*)::int AS count FROM analyses
        WHERE status IN ('queued', 'processing') GROUP BY priority, status`,
      [],
    );
    return rows.map((row) => ({
      priority: row.priority,
      status: row.status === 'queued' ? 'queued' : 'processing',
      count: row.count,
    }));
  }

  /** Analyses of the whole deployment completed since `since`, per type. */
  async completionsAcrossTenants(since: Date, on: Queryable = this.sql): Promise<Completions[]> {
    const rows = await on.rows<{
      analysis_type: AnalysisType;
      completed: number;
      mean_ms: number;
      first_at: Date;
    }>(
      `SELECT analysis_type, count(*)::int AS completed, min(completed_at) AS first_at,
              avg(extract(epoch FROM completed_at - started_at) * 1000)::float8 AS mean_ms
         FROM analyses WHERE status = 'completed' AND completed_at > $1
        GROUP BY analysis_type`,
      [since],
    );
    return rows.map((row) => ({
      analysisType: row.analysis_type,
      completed: row.completed,
      meanMs: row.mean_ms,
      firstAt: row.first_at,
    }));
  }
}

interface CompletedRow {
  id: string;
  confidence_score: number | null;
  completed_at: Date;
}

function completedFromRow(row: CompletedRow): CompletedAnalysis {
  return { id: row.id, confidenceScore: row.confidence_score, completedAt: row.completed_at };
}

/**
 * The (organisation, mode, created_at) and (organisation, mode, status,
 * created_at) indexes INCLUDE the other filtered columns, so the filters
 * are checked inside the index.
 */
function listConditions(tenant: Tenant, filter: AnalysisFilter): SqlConditions {
  const where = tenantConditions(tenant);
  if (filter.status) where.and(`status = ${where.param(filter.status)}`);
  if (filter.targetType) where.and(`target_type = ${where.param(filter.targetType)}`);
  if (filter.priority) where.and(`priority = ${where.param(filter.priority)}`);
  return where;
}

/** The columns a completion of either engine stores. */
function completedColumns(completion: AnalysisCompletion) {
  return {
    status: 'completed',
    steps_done: completion.stepsDone,
    completed_at: completion.completedAt,
    results: completion.results,
    score_details: completion.scoreDetails,
    confidence_score: completion.results.confidence_score,
    evidence: completion.evidence,
    event_sequence: completion.sequence,
    updated_at: NOW as unknown,
  };
}
