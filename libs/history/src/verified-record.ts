import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql } from '#database';
import type { VerifiedRecord } from '#statistics';
import {
  VERIFIED_RECORD_SQL,
  verifiedRecordFromRows,
  verifiedRecordParameters,
  type VerifiedRecordQuery,
  type VerifiedRecordRow,
} from './verified-record-sql.js';

export * from './verified-record-sql.js';

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
  constructor(private readonly sql: Sql) {}

  async of(tenant: Tenant, query: VerifiedRecordQuery): Promise<VerifiedRecord> {
    const rows = await this.sql.rows<VerifiedRecordRow>(
      VERIFIED_RECORD_SQL,
      verifiedRecordParameters(tenant, query),
    );
    return verifiedRecordFromRows(rows);
  }
}
