import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { verifiedRecord, type VerifiedRecord } from '#statistics';
import { HistoryCasesRepository } from './history-cases.repository.js';
import type { VerifiedRecordQuery } from './verified-record-query.js';

export * from './verified-record-query.js';

/**
 * The verified record of a tenant's work (docs/statistics.md, "Verified
 * outcomes"): its most recent verified, completed cases of one type (and
 * subtypes), counted by verdict and chance baseline — the top of the
 * evidence ladder for the engines. One indexed statement a call; the
 * organisation and mode scope it, so sandbox verdicts never reach live work
 * and no organisation's reach another's.
 */
@Injectable()
export class VerifiedRecords {
  constructor(private readonly cases: HistoryCasesRepository) {}

  async of(tenant: Tenant, query: VerifiedRecordQuery): Promise<VerifiedRecord> {
    return verifiedRecord(await this.cases.verifiedTallies(tenant, query));
  }
}
