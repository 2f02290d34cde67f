import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql } from '#database';
import type { CaseType } from '../history-case.js';
import { HistoryPatternsRepository } from './history-patterns.repository.js';
import {
  historyPatterns,
  PATTERN_CANDIDATES,
  PATTERN_WINDOW,
  type HistoryPatterns,
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
  constructor(
    private readonly sql: Sql,
    private readonly cases: HistoryPatternsRepository,
  ) {}

  async patterns(tenant: Tenant, filters: PatternFilters): Promise<HistoryPatterns> {
    // On a read replica when one is usable: the heaviest read of the history (Sql.reader).
    const aggregates = await this.cases.patternAggregates(
      tenant,
      {
        type: filters.type,
        dateFrom: filters.dateFrom,
        dateBefore: filters.dateBefore,
        window: PATTERN_WINDOW,
        gridDegrees: filters.gridDegrees,
        minSupport: filters.minSupport,
        candidates: PATTERN_CANDIDATES,
      },
      await this.sql.reader(tenant),
    );
    return historyPatterns(aggregates, {
      minSupport: filters.minSupport,
      gridDegrees: filters.gridDegrees,
      window: PATTERN_WINDOW,
    });
  }
}
