import type { AnalysisEntity } from './entities/analysis.entity.js';

/** The columns of `analyses` in one order, with the entity field each maps to. */
const FIELDS = {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
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
  status: 'status',
  steps_done: 'stepsDone',
  steps: 'steps',
  engine: 'engine',
  engine_version: 'engineVersion',
  engine_seed: 'engineSeed',
  results: 'results',
  score_details: 'scoreDetails',
  confidence_score: 'confidenceScore',
  evidence: 'evidence',
  failure_reason: 'failureReason',
  failure_message: 'failureMessage',
  event_sequence: 'eventSequence',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  started_at: 'startedAt',
  completed_at: 'completedAt',
  estimated_completion: 'estimatedCompletion',
  batch_id: 'batchId',
} as const satisfies Record<string, keyof AnalysisEntity>;

type Column = keyof typeof FIELDS;
export const ANALYSIS_COLUMNS = Object.keys(FIELDS) as Column[];
export type AnalysisRow = Record<Column, unknown>;

/** Columns stored as JSON: node-postgres would write a JS array as a PostgreSQL array. */
const JSON_COLUMNS = new Set<Column>([
  'reference_material',
  'material',
  'earlier_work',
  'results',
  'score_details',
]);

export const SELECT_ANALYSIS = `SELECT ${ANALYSIS_COLUMNS.join(', ')} FROM analyses
  WHERE id = $1 AND organization_id = $2 AND mode = $3`;

export const INSERT_ANALYSIS = `INSERT INTO analyses (${ANALYSIS_COLUMNS.join(', ')})
  VALUES (${ANALYSIS_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

export function analysisFromRow(row: AnalysisRow): AnalysisEntity {
  const entity: Record<string, unknown> = {};
  for (const column of ANALYSIS_COLUMNS) entity[FIELDS[column]] = row[column];
  return entity as unknown as AnalysisEntity;
}

export function analysisToRow(analysis: AnalysisEntity): unknown[] {
  return ANALYSIS_COLUMNS.map((column) => {
    const value = analysis[FIELDS[column]];
    return JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value;
  });
}
