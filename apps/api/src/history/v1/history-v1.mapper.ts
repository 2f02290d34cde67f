import { toPublicId } from '#common';
import { caseSource, locationOf, type HistoryCase, type OutcomeInput } from '#history';
import { haversineMeters } from '#statistics';
import type { HistoryCaseDto } from './history-v1.dto.js';
import type { RecordOutcomeDto } from './record-outcome-v1.dto.js';

/** A PUT …/outcome body with its defaults: not independently verified, verified now. */
export function toOutcome(body: RecordOutcomeDto): OutcomeInput {
  return {
    verdict: body.verdict,
    outcome: body.outcome ?? null,
    locationFound: body.location_found ?? null,
    coordinates: body.coordinates ?? null,
    verification: body.verification ?? null,
    independentVerification: body.independent_verification ?? false,
    accuracyConfirmed: body.accuracy_confirmed ?? false,
    verifiedBy: body.verified_by,
    verifiedAt: body.verified_at === undefined ? new Date() : new Date(body.verified_at),
  };
}

export function toCaseDetail(record: HistoryCase): HistoryCaseDto {
  const pointed = point(record.latitude, record.longitude);
  const truth = point(record.trueLatitude, record.trueLongitude);
  return {
    case_id: toPublicId('history', record.id),
    type: record.type,
    date: record.date.toISOString(),
    target: record.target,
    client: record.client,
    analysts: record.analysts,
    process: {
      duration_minutes: record.durationMinutes,
      modality: record.modality,
      phases: record.phases,
    },
    results: {
      location_found: record.locationFound,
      coordinates: pointed,
      description: record.description,
      verification: record.verification,
    },
    outcome: record.outcome,
    confidence_score: record.confidenceScore,
    validation: {
      independent_verification: record.independentVerification,
      accuracy_confirmed: record.accuracyConfirmed,
    },
    status: record.workStatus,
    descriptors: record.descriptors,
    location: locationOf(record),
    verdict: record.verdict,
    verified_coordinates: truth,
    error_distance_km: pointed && truth ? Math.round(haversineMeters(pointed, truth)) / 1000 : null,
    verified_by: record.verifiedBy,
    verified_at: record.verifiedAt?.toISOString() ?? null,
    source: caseSource(record),
    external_id: record.externalId,
    classified: record.classified,
    updated_at: record.updatedAt.toISOString(),
  };
}

function point(latitude: number | null, longitude: number | null) {
  return latitude === null || longitude === null ? null : { latitude, longitude };
}
