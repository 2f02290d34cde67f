import { rowMapping } from '#database';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

const FIELDS = {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  variant: 'variant',
  query_type: 'queryType',
  question: 'question',
  precision_level: 'precisionLevel',
  context: 'context',
  input: 'input',
  status: 'status',
  engine: 'engine',
  engine_version: 'engineVersion',
  engine_seed: 'engineSeed',
  result: 'result',
  confidence: 'confidence',
  evidence: 'evidence',
  failure_reason: 'failureReason',
  failure_message: 'failureMessage',
  event_sequence: 'eventSequence',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  completed_at: 'completedAt',
  batch_id: 'batchId',
} as const satisfies Record<string, keyof DowsingQueryEntity>;

/** `dowsing_queries` ↔ DowsingQueryEntity. */
export const QUERY_ROWS = rowMapping<DowsingQueryEntity, keyof typeof FIELDS>(
  'dowsing_queries',
  FIELDS,
  ['context', 'input', 'result'],
);
