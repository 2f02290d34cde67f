import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql } from '#database';
import type { CaseType } from '../history-case.js';
import { HISTORY_PATTERNS_SQL } from './history-patterns-sql.js';
import {
  historyPatterns,
  PATTERN_CANDIDATES,
  PATTERN_WINDOW,
  type HistoryPatterns,
  type PatternAggregates,
} from './history-patterns.js';

/** Which cases patterns are looked for in. */
export interface PatternFilters {
  type: CaseType | null;
  /** Cases dated at or after this. */
  dateFrom: Date | null;
  /** Cases dated before this (the HTTP layer turns an inclusive date_to into it). */
  dateBefore: Date | null;
  /** Fewest cases a listed term or cell needs, and fewest verified ones to test its hit rate. */
  minSupport: number;
  /** The place grid's cell side in degrees of latitude and longitude. */
  gridDegrees: number;
}

/** Recurring descriptors, places and times of an organisation's history (docs/history.md, "Patterns"). */
@Injectable()
export class HistoryPatternsService {
  constructor(private readonly sql: Sql) {}

  async patterns(tenant: Tenant, filters: PatternFilters): Promise<HistoryPatterns> {
    // On a read replica when one is usable: the heaviest read of the history (Sql.reader).
    const sql = await this.sql.reader(tenant);
    const [aggregates] = await sql.rows<PatternAggregates>(HISTORY_PATTERNS_SQL, [
      tenant.organizationId,
      tenant.mode,
      filters.type,
      filters.dateFrom,
      filters.dateBefore,
      PATTERN_WINDOW,
      filters.gridDegrees,
      filters.minSupport,
      PATTERN_CANDIDATES,
    ]);
    return historyPatterns(aggregates!, {
      minSupport: filters.minSupport,
      gridDegrees: filters.gridDegrees,
      window: PATTERN_WINDOW,
    });
  }
}
