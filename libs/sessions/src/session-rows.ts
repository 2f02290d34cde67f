import type { SessionEntity } from './entities/session.entity.js';

/** The columns of `sessions` in one order, shared by the insert and the select. */
export const SESSION_COLUMNS = [
  'id',
  'organization_id',
  'mode',
  'type',
  'target',
  'modality',
  'duration_minutes',
  'privacy_level',
  'status',
  'progress',
  'engine',
  'engine_version',
  'engine_seed',
  'results',
  'confidence_score',
  'analyst_id',
  'evidence',
  'failure_reason',
  'event_sequence',
  'created_at',
  'updated_at',
  'started_at',
  'completed_at',
  'estimated_completion',
  'batch_id',
  'analyst_count',
  'merged_from',
] as const;

export type SessionRow = Record<(typeof SESSION_COLUMNS)[number], unknown>;

export const SELECT_SESSION = `SELECT ${SESSION_COLUMNS.join(', ')} FROM sessions
  WHERE id = $1 AND organization_id = $2 AND mode = $3`;

export const INSERT_SESSION = `INSERT INTO sessions (${SESSION_COLUMNS.join(', ')})
  VALUES (${SESSION_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

export function sessionFromRow(row: SessionRow): SessionEntity {
  return {
    id: row.id,
    organizationId: row.organization_id,
    mode: row.mode,
    type: row.type,
    target: row.target,
    modality: row.modality,
    durationMinutes: row.duration_minutes,
    privacyLevel: row.privacy_level,
    status: row.status,
    progress: row.progress,
    engine: row.engine,
    engineVersion: row.engine_version,
    engineSeed: row.engine_seed,
    results: row.results,
    confidenceScore: row.confidence_score,
    analystId: row.analyst_id,
    evidence: row.evidence,
    failureReason: row.failure_reason,
    eventSequence: row.event_sequence,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    estimatedCompletion: row.estimated_completion,
    batchId: row.batch_id,
    analystCount: row.analyst_count,
    mergedFrom: row.merged_from,
  } as SessionEntity;
}

export function sessionToRow(session: SessionEntity): unknown[] {
  return [
    session.id,
    session.organizationId,
    session.mode,
    session.type,
    session.target,
    session.modality,
    session.durationMinutes,
    session.privacyLevel,
    session.status,
    session.progress,
    session.engine,
    session.engineVersion,
    session.engineSeed,
    session.results === null ? null : JSON.stringify(session.results),
    session.confidenceScore,
    session.analystId,
    session.evidence,
    session.failureReason,
    session.eventSequence,
    session.createdAt,
    session.updatedAt,
    session.startedAt,
    session.completedAt,
    session.estimatedCompletion,
    session.batchId,
    session.analystCount,
    session.mergedFrom,
  ];
}
