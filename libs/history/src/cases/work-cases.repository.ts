import { Injectable } from '@nestjs/common';
import { newUuid, type Tenant } from '#common';
import type { Transaction } from '#database';
import { FINISHED_STATUSES, type WorkCase } from './work-case.js';

/**
 * The cases of the service's own work in `history_cases`, written and
 * forgotten in the transaction that finishes or deletes the work. The work
 * libs' repositories call it from every statement that can finish or delete
 * a piece of work (test/data-layer.e2e-spec.ts holds them to it), so a case
 * is there exactly when its finished work is.
 *
 * Only the work's columns are written, and rewritten when finished work
 * changes again: the verified outcome recorded later belongs to the case.
 * One statement for any number of cases, so a bulk load (seeding) costs one
 * round trip per chunk, and the rollups' statement triggers run once.
 */
@Injectable()
export class WorkCasesRepository {
  /** Writes (or rewrites) the cases of the tenant's finished work. */
  async recordFinished(tx: Transaction, tenant: Tenant, cases: readonly WorkCase[]): Promise<void> {
    if (cases.length === 0) return;
    for (const workCase of cases) {
      if (
        workCase.tenant.organizationId !== tenant.organizationId ||
        workCase.tenant.mode !== tenant.mode
      ) {
        throw new Error(`the case of ${workCase.sourceId} belongs to another tenant`);
      }
    }
    await tx.query(UPSERT_WORK_CASES, [
      tenant.organizationId,
      tenant.mode,
      JSON.stringify(cases.map(workCaseRecord)),
    ]);
  }

  /**
   * The cases of the work a statement has just written (`toCase` maps one):
   * those it left finished get theirs; work still running has none yet.
   */
  async recordWritten<W extends { status: string }>(
    tx: Transaction,
    tenant: Tenant,
    written: readonly W[],
    toCase: (work: W) => WorkCase,
  ): Promise<void> {
    await this.recordFinished(
      tx,
      tenant,
      written.filter((work) => FINISHED_STATUSES.includes(work.status)).map(toCase),
    );
  }

  /** Forgets the cases of the tenant's deleted work (none is an error: unfinished work has none). */
  async forget(tx: Transaction, tenant: Tenant, sourceIds: readonly string[]): Promise<void> {
    if (sourceIds.length === 0) return;
    await tx.query(
      `DELETE FROM history_cases
        WHERE source_id = ANY($1::uuid[]) AND organization_id = $2 AND mode = $3`,
      [sourceIds, tenant.organizationId, tenant.mode],
    );
  }
}

const WORK_CASE_COLUMNS = `id uuid, source_type text, source_id uuid, type text, subtype text,
  work_status text, classified boolean, date timestamptz, target text, analysts text[],
  duration_minutes integer, modality text, phases text[], descriptors text[], description text,
  latitude float8, longitude float8, confidence_score float8, chance_baseline float8`;

/** The columns a work case sets, after the tenant's two. */
const WRITTEN = [
  'id',
  'source_type',
  'source_id',
  'type',
  'subtype',
  'work_status',
  'classified',
  'date',
  'target',
  'analysts',
  'duration_minutes',
  'modality',
  'phases',
  'descriptors',
  'description',
  'latitude',
  'longitude',
  'confidence_score',
  'chance_baseline',
] as const;

/** On a second finish of the same work, everything but the case's id, source and tenant. */
const REWRITTEN = WRITTEN.filter(
  (column) => column !== 'id' && column !== 'source_type' && column !== 'source_id',
);

const UPSERT_WORK_CASES = `
  INSERT INTO history_cases (organization_id, mode, ${WRITTEN.join(', ')})
  SELECT $1, $2, ${WRITTEN.map((column) => `r.${column}`).join(', ')}
    FROM jsonb_to_recordset($3::jsonb) AS r(${WORK_CASE_COLUMNS})
  ON CONFLICT (source_id) DO UPDATE SET
         ${REWRITTEN.map((column) => `${column} = EXCLUDED.${column}`).join(', ')},
         updated_at = now()`;

/** A work case as the statement reads it (one JSON record of jsonb_to_recordset). */
function workCaseRecord(workCase: WorkCase): Record<(typeof WRITTEN)[number], unknown> {
  return {
    id: newUuid(),
    source_type: workCase.sourceType,
    source_id: workCase.sourceId,
    type: workCase.type,
    subtype: workCase.subtype,
    work_status: workCase.workStatus,
    classified: workCase.classified,
    date: workCase.date.toISOString(),
    target: workCase.target,
    analysts: workCase.analysts,
    duration_minutes: workCase.durationMinutes,
    modality: workCase.modality,
    phases: workCase.phases,
    descriptors: workCase.descriptors,
    description: workCase.description,
    latitude: workCase.latitude,
    longitude: workCase.longitude,
    confidence_score: workCase.confidenceScore,
    chance_baseline: workCase.chanceBaseline,
  };
}
