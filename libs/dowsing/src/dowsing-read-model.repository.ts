import { Injectable } from '@nestjs/common';
import { Sql } from '#database';
import { WorkReadModelRepository } from '#work';

/**
 * What other libs read of `dowsing_queries` for analytics and dashboards
 * (WorkReadModelRepository). Queries hold no place of the plan's concurrent
 * limit, so there is no running count.
 */
@Injectable()
export class DowsingReadModelRepository extends WorkReadModelRepository {
  constructor(sql: Sql) {
    super(sql, { table: 'dowsing_queries' });
  }
}
