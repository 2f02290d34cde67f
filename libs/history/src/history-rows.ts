import { rowMapping } from '#database';
import type { HistoryCase, VerifiedOutcome } from './history-case.js';

const FIELDS = {
  organization_id: 'organizationId',
  mode: 'mode',
  id: 'id',
  source_type: 'sourceType',
  source_id: 'sourceId',
  external_id: 'externalId',
  type: 'type',
  subtype: 'subtype',
  work_status: 'workStatus',
  classified: 'classified',
  date: 'date',
  target: 'target',
  client: 'client',
  analysts: 'analysts',
  duration_minutes: 'durationMinutes',
  modality: 'modality',
  phases: 'phases',
  descriptors: 'descriptors',
  description: 'description',
  latitude: 'latitude',
  longitude: 'longitude',
  confidence_score: 'confidenceScore',
  chance_baseline: 'chanceBaseline',
  verdict: 'verdict',
  outcome: 'outcome',
  location_found: 'locationFound',
  true_latitude: 'trueLatitude',
  true_longitude: 'trueLongitude',
  verification: 'verification',
  independent_verification: 'independentVerification',
  accuracy_confirmed: 'accuracyConfirmed',
  verified_by: 'verifiedBy',
  verified_at: 'verifiedAt',
  event_sequence: 'eventSequence',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
} as const satisfies Record<string, keyof HistoryCase>;

export type HistoryCaseColumn = keyof typeof FIELDS;

/** A row of `history_cases` as a statement returns it, for CASE_ROWS.fromRow. */
export type HistoryCaseRow = Record<HistoryCaseColumn, unknown>;

/** `history_cases` ↔ HistoryCase (its generated `document` and `earth` columns are never written). */
export const CASE_ROWS = rowMapping<HistoryCase, HistoryCaseColumn>('history_cases', FIELDS);

/** The columns of a verified outcome, besides its text, in VerifiedOutcome's order. */
export const VERIFIED_OUTCOME_COLUMNS = [
  'verdict',
  'location_found',
  'true_latitude',
  'true_longitude',
  'verification',
  'independent_verification',
  'accuracy_confirmed',
  'verified_by',
  'verified_at',
] as const satisfies readonly HistoryCaseColumn[];

/** A verified outcome's values, in VERIFIED_OUTCOME_COLUMNS' order. */
export function verifiedOutcomeValues(outcome: VerifiedOutcome): unknown[] {
  return [
    outcome.verdict,
    outcome.locationFound,
    outcome.coordinates?.latitude ?? null,
    outcome.coordinates?.longitude ?? null,
    outcome.verification,
    outcome.independentVerification,
    outcome.accuracyConfirmed,
    outcome.verifiedBy,
    outcome.verifiedAt,
  ];
}
