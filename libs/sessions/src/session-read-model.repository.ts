import { Injectable } from '@nestjs/common';
import { Sql } from '#database';
import { LimitedWorkReadModelRepository, type FinishedWorkFigures } from '#work';

/** A finished session as performance figures count it. */
export interface FinishedSessionFigures extends FinishedWorkFigures {
  /** SAIC accuracy and reliability (`results.validation_metrics`), where recorded. */
  accuracy: number | null;
  reliability: number | null;
  /** Whether the session records validation metrics at all. */
  scored: boolean;
}

/** What other libs read of `sessions` for analytics and dashboards (LimitedWorkReadModelRepository). */
@Injectable()
export class SessionReadModelRepository extends LimitedWorkReadModelRepository<FinishedSessionFigures> {
  constructor(sql: Sql) {
    super(sql, {
      table: 'sessions',
      running: ['initiated', 'in_progress'],
      figures: `(results->'validation_metrics'->>'accuracy')::float8 AS accuracy,
                (results->'validation_metrics'->>'reliability')::float8 AS reliability,
                results->'validation_metrics' IS NOT NULL AS scored`,
    });
  }
}
