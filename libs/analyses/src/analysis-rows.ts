import { rowMapping } from '#database';
import type { AnalysisEntity } from './entities/analysis.entity.js';

/** The columns of `analyses`, each with the entity field it maps to. */
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
export const ANALYSIS_ROWS = rowMapping<AnalysisEntity, Column>('analyses', FIELDS, [
  'reference_material',
  'material',
  'earlier_work',
  'results',
  'score_details',
]);

export const ANALYSIS_COLUMNS = ANALYSIS_ROWS.columns;
export type AnalysisRow = Record<Column, unknown>;

export const SELECT_ANALYSIS = `SELECT ${ANALYSIS_ROWS.selectList} FROM analyses
  WHERE id = $1 AND organization_id = $2 AND mode = $3`;

export const INSERT_ANALYSIS = ANALYSIS_ROWS.insert;
export const analysisFromRow = (row: AnalysisRow): AnalysisEntity => ANALYSIS_ROWS.fromRow(row);
export const analysisToRow = (analysis: AnalysisEntity): unknown[] => ANALYSIS_ROWS.toRow(analysis);
