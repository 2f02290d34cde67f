import { toPublicId } from '#common';
import type { EventDataMap } from '#events';
import type { HistoryCase } from './history-case.js';

const SOURCE_KINDS = {
  session: 'session',
  analysis: 'analysis',
  dowsing_query: 'dowsing',
} as const;

/** The public id of the work a case records, or null for an imported case. */
export function caseSource(record: HistoryCase): { type: string; id: string } | null {
  if (record.sourceType === 'import' || record.sourceId === null) return null;
  return {
    type: record.sourceType,
    id: toPublicId(SOURCE_KINDS[record.sourceType], record.sourceId),
  };
}

export function outcomeVerifiedData(
  record: HistoryCase,
  corrected: boolean,
): EventDataMap['history.outcome_verified'] {
  return {
    case_id: toPublicId('history', record.id),
    type: record.type,
    source: caseSource(record),
    verdict: record.verdict!,
    location_found: record.locationFound,
    independent_verification: record.independentVerification,
    accuracy_confirmed: record.accuracyConfirmed,
    verified_at: record.verifiedAt!.toISOString(),
    corrected,
    sequence: record.eventSequence,
  };
}
