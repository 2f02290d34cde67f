import { newUuid, type Tenant } from '#common';
import type { SqlExecutor } from '#database';
import type { CaseType } from '../history-case.js';
import { VERIFIED_OUTCOME_COLUMNS } from '../history-rows.js';
import type { ImportedCase } from './import-row.js';

/** The JSON record of one imported case, as the statement reads it (jsonb_to_recordset). */
interface CaseRecord {
  id: string;
  external_id: string;
  type: string;
  subtype: string | null;
  classified: boolean;
  date: string;
  target: string;
  client: string | null;
  analysts: string[];
  duration_minutes: number | null;
  modality: string | null;
  phases: string[];
  descriptors: string[];
  description: string | null;
  latitude: number | null;
  longitude: number | null;
  confidence_score: number | null;
  outcome: string | null;
  verdict: string | null;
  location_found: boolean | null;
  true_latitude: number | null;
  true_longitude: number | null;
  verification: string | null;
  independent_verification: boolean;
  accuracy_confirmed: boolean;
  verified_by: string | null;
  verified_at: string | null;
}

const RECORD_COLUMNS = `id uuid, external_id text, type text, subtype text, classified boolean,
  date timestamptz, target text, client text, analysts text[], duration_minutes integer,
  modality text, phases text[], descriptors text[], description text, latitude float8,
  longitude float8, confidence_score float8, outcome text, verdict text, location_found boolean,
  true_latitude float8, true_longitude float8, verification text,
  independent_verification boolean, accuracy_confirmed boolean, verified_by text,
  verified_at timestamptz`;

/**
 * Writes imported cases in one statement: new external ids become cases,
 * known ones (of this organisation and mode, through the partial unique
 * index) are rewritten. A re-import is the team's record again, so every
 * field of the work is replaced, absent ones cleared; the verified outcome
 * is replaced only by a row with a `verdict` — one recorded since through
 * PUT /v1/history/{case_id}/outcome survives re-importing the original
 * records — and `outcome` text likewise unless the row gives one.
 * Classified, date, target… stay the import's: the trigger-written cases of
 * the service's own work never carry an external id, so never conflict.
 */
const UPSERT = `
  INSERT INTO history_cases AS c (organization_id, mode, id, source_type, external_id, type,
         subtype, work_status, classified, date, target, client, analysts, duration_minutes,
         modality, phases, descriptors, description, latitude, longitude, confidence_score,
         outcome, ${VERIFIED_OUTCOME_COLUMNS.join(', ')})
  SELECT $1, $2, r.id, 'import', r.external_id, r.type, r.subtype, 'completed', r.classified,
         r.date, r.target, r.client, r.analysts, r.duration_minutes, r.modality, r.phases,
         r.descriptors, r.description, r.latitude, r.longitude, r.confidence_score, r.outcome,
         ${VERIFIED_OUTCOME_COLUMNS.map((column) => `r.${column}`).join(', ')}
    FROM jsonb_to_recordset($3::jsonb) AS r(${RECORD_COLUMNS})
  ON CONFLICT (organization_id, mode, external_id) WHERE external_id IS NOT NULL DO UPDATE SET
         type = EXCLUDED.type, subtype = EXCLUDED.subtype, classified = EXCLUDED.classified,
         date = EXCLUDED.date, target = EXCLUDED.target, client = EXCLUDED.client,
         analysts = EXCLUDED.analysts, duration_minutes = EXCLUDED.duration_minutes,
         modality = EXCLUDED.modality, phases = EXCLUDED.phases,
         descriptors = EXCLUDED.descriptors, description = EXCLUDED.description,
         latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude,
         confidence_score = EXCLUDED.confidence_score,
         outcome = coalesce(EXCLUDED.outcome, CASE WHEN EXCLUDED.verdict IS NULL THEN c.outcome END),
         ${VERIFIED_OUTCOME_COLUMNS.map(
           (column) =>
             `${column} = CASE WHEN EXCLUDED.verdict IS NULL THEN c.${column} ELSE EXCLUDED.${column} END`,
         ).join(',\n         ')},
         updated_at = now()
  RETURNING c.external_id, (c.xmax = 0) AS inserted`;

/**
 * Upserts the cases (each external id at most once: a statement cannot
 * touch a row twice) and tells, by external id, whether each was new.
 */
export async function upsertImportedCases(
  tx: SqlExecutor,
  tenant: Tenant,
  cases: readonly ImportedCase[],
): Promise<Map<string, boolean>> {
  const records = JSON.stringify(cases.map(caseRecord));
  const { rows } = (await tx.query(UPSERT, [tenant.organizationId, tenant.mode, records])) as {
    rows: { external_id: string; inserted: boolean }[];
  };
  return new Map(rows.map((row) => [row.external_id, row.inserted]));
}

/**
 * What `subtype` holds for an imported case: a session's and an analysis's
 * case hold their modality there, so an import's `process.modality` does
 * too and its verified outcomes count with the service's own work of that
 * modality; a dowsing query's case holds its query type, which an import
 * does not carry, so an imported dowsing case has none.
 */
export function importedSubtype(type: CaseType, modality: string | null): string | null {
  return type === 'dowsing' ? null : modality;
}

function caseRecord(row: ImportedCase): CaseRecord {
  const verified = row.verified;
  return {
    id: newUuid(),
    external_id: row.externalId,
    type: row.type,
    subtype: importedSubtype(row.type, row.modality),
    classified: row.classified,
    date: row.date.toISOString(),
    target: row.target,
    client: row.client,
    analysts: row.analysts,
    duration_minutes: row.durationMinutes,
    modality: row.modality,
    phases: row.phases,
    descriptors: row.descriptors,
    description: row.description,
    latitude: row.location?.latitude ?? null,
    longitude: row.location?.longitude ?? null,
    confidence_score: row.confidenceScore,
    outcome: row.outcome,
    verdict: verified?.verdict ?? null,
    location_found: verified?.locationFound ?? null,
    true_latitude: verified?.coordinates?.latitude ?? null,
    true_longitude: verified?.coordinates?.longitude ?? null,
    verification: verified?.verification ?? null,
    independent_verification: verified?.independentVerification ?? false,
    accuracy_confirmed: verified?.accuracyConfirmed ?? false,
    verified_by: verified?.verifiedBy ?? null,
    verified_at: verified?.verifiedAt.toISOString() ?? null,
  };
}
