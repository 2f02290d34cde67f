import { Injectable } from '@nestjs/common';
import { Sql } from '#database';
import { LimitedWorkReadModelRepository } from '#work';

/** What other libs read of `analyses` for analytics and dashboards (LimitedWorkReadModelRepository). */
@Injectable()
export class AnalysisReadModelRepository extends LimitedWorkReadModelRepository {
  constructor(sql: Sql) {
    super(sql, { table: 'analyses', running: ['queued', 'processing'] });
  }
}
