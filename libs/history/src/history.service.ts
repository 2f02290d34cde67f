import { Injectable } from '@nestjs/common';
import { AppError, parsePublicId, type Principal, type Tenant } from '#common';
import { Sql } from '#database';
import { AuditLog, auditChanges, EventLog } from '#events';
import type { HistoryCase, OutcomeInput } from './history-case.js';
import { outcomeVerifiedData } from './history-events.js';
import { HistoryCasesRepository } from './history-cases.repository.js';

/** How far in the future a `verified_at` may lie (clocks disagree a little). */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * History cases as API callers read them, and their verified outcomes. The
 * work's own fields are written by database triggers when the work finishes
 * (migration 1764086400000); the outcome is the caller's.
 */
@Injectable()
export class HistoryService {
  constructor(
    private readonly sql: Sql,
    private readonly cases: HistoryCasesRepository,
    private readonly events: EventLog,
  ) {}

  /** The case with that public id in the caller's organisation and mode, else NOT_FOUND. */
  async get(tenant: Tenant, publicId: string): Promise<HistoryCase> {
    const uuid = parsePublicId('history', publicId);
    const found = uuid === null ? null : await this.cases.find(tenant, uuid);
    if (!found) throw AppError.notFound('history case', publicId);
    return found;
  }

  /**
   * Records (or corrects) what really happened. One transaction: the case's
   * outcome, its `history.outcome_verified` event and an audit record that
   * keeps the earlier outcome when this one replaces it.
   */
  async recordOutcome(
    principal: Principal,
    publicId: string,
    input: OutcomeInput,
    requestId: string | null,
  ): Promise<HistoryCase> {
    if (input.verifiedAt.getTime() > Date.now() + CLOCK_SKEW_MS) {
      throw AppError.invalid('verified_at', 'must not be in the future');
    }
    const uuid = parsePublicId('history', publicId);
    if (uuid === null) throw AppError.notFound('history case', publicId);
    return this.sql.transaction(async (tx) => {
      const earlier = await this.cases.findForUpdate(tx, principal, uuid);
      if (!earlier) throw AppError.notFound('history case', publicId);
      if (earlier.workStatus === 'failed') {
        throw new AppError(
          'CONFLICT',
          'The work of this case failed: it gave no result to verify against what really happened.',
          { field: 'case_id' },
        );
      }
      const corrected = earlier.verdict !== null;
      // The row is held since findForUpdate: it is there.
      const record = (await this.cases.recordOutcome(tx, principal, uuid, input))!;
      await this.events.append(
        tx,
        principal,
        'history.outcome_verified',
        outcomeVerifiedData(record, corrected),
        requestId,
      );
      await AuditLog.record(tx, principal, {
        action: corrected ? 'history_case.outcome_corrected' : 'history_case.outcome_recorded',
        actor: principal,
        target: { type: 'history_case', id: publicId },
        changes: auditChanges(corrected ? outcomeOf(earlier) : {}, outcomeOf(record)),
      });
      return record;
    });
  }
}

/** A case's outcome as the API writes it, for the audit trail. */
function outcomeOf(record: HistoryCase): Record<string, unknown> {
  return {
    verdict: record.verdict,
    outcome: record.outcome,
    location_found: record.locationFound,
    coordinates:
      record.trueLatitude === null
        ? null
        : { latitude: record.trueLatitude, longitude: record.trueLongitude },
    verification: record.verification,
    independent_verification: record.independentVerification,
    accuracy_confirmed: record.accuracyConfirmed,
    verified_by: record.verifiedBy,
    verified_at: record.verifiedAt?.toISOString() ?? null,
  };
}
