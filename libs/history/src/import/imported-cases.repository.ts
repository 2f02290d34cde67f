import { Injectable } from '@nestjs/common';
import { newUuid, type Tenant } from '#common';
import type { Transaction } from '#database';
import { VERIFIED_OUTCOME_COLUMNS } from '../history-rows.js';
import { importedSubtype, type ImportedCase } from './import-row.js';

/**
 * What an import writes to `history_cases` (HistoryImportService,
 * ImportBatch): the tenant's import lock, and imported cases upserted by
 * their external id. Both run in the import's transaction, so it holds no
 * pool of its own.
 */
@Injectable()
export class ImportedCasesRepository {
  /**
   * Takes the tenant's import lock until `tx` ends: false when another
   * import of the organisation and mode holds it (two at once would wait on
   * each other's rows, and their counts would depend on the race).
   */
  async claimImport(tx: Transaction, tenant: Tenant): Promise<boolean> {
    const [row] = await tx.rows<{ claimed: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS claimed',
      [`history-import:${tenant.organizationId}:${tenant.mode}`],
    );
    return row?.claimed === true;
  }

  /**
   * Writes imported cases in one statement, under a savepoint: new external
   * ids become cases, known ones (of this organisation and mode, through the
   * partial unique index) are rewritten; tells, by external id, whether each
   * was new. A statement that fails rolls back to the savepoint only, so the
   * import's transaction goes on (ImportBatch then writes row by row); the
   * error is thrown as it came.
   *
   * A re-import is the team's record again, so every field of the work is
   * replaced, absent ones cleared; the verified outcome is replaced only by
   * a row with a `verdict` — one recorded since through PUT
   * /v1/history/{case_id}/outcome survives re-importing the original records
   * — and `outcome` text likewise unless the row gives one. Classified,
   * date, target… stay the import's: the cases WorkCasesRepository writes
   * for the service's own work never carry an external id, so never
   * conflict. Each external id at most once: a statement cannot touch a row
   * twice.
   */
  async upsertImported(
    tx: Transaction,
    tenant: Tenant,
    cases: readonly ImportedCase[],
  ): Promise<Map<string, boolean>> {
    await tx.query('SAVEPOINT history_import');
    let rows: { external_id: string; inserted: boolean }[];
    try {
      rows = await tx.rows(UPSERT_IMPORTED, [
        tenant.organizationId,
        tenant.mode,
        JSON.stringify(cases.map(importedRecord)),
      ]);
    } catch (error) {
      // Released too, so a refused batch's rows written one by one next do not nest under it.
      await tx
        .statements('ROLLBACK TO SAVEPOINT history_import; RELEASE SAVEPOINT history_import')
        .catch(() => undefined);
      throw error;
    }
    await tx.query('RELEASE SAVEPOINT history_import');
    return new Map(rows.map((row) => [row.external_id, row.inserted]));
  }
}

const RECORD_COLUMNS = `id uuid, external_id text, type text, subtype text, classified boolean,
  date timestamptz, target text, client text, analysts text[], duration_minutes integer,
  modality text, phases text[], descriptors text[], description text, latitude float8,
  longitude float8, confidence_score float8, outcome text, verdict text, location_found boolean,
  true_latitude float8, true_longitude float8, verification text,
  independent_verification boolean, accuracy_confirmed boolean, verified_by text,
  verified_at timestamptz`;

/** See ImportedCasesRepository#upsertImported. */
const UPSERT_IMPORTED = `
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

/** An imported case as the statement reads it (one JSON record of jsonb_to_recordset). */
function importedRecord(row: ImportedCase): Record<string, unknown> {
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
