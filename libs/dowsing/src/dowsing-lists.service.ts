import { Injectable } from '@nestjs/common';
import { WorkListsService } from '#work';
import { DowsingQueriesRepository, type DowsingFilter } from './dowsing-queries.repository.js';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

/** The lists of a tenant's dowsing queries (WorkListsService), read from a replica when one is usable. */
@Injectable()
export class DowsingListsService extends WorkListsService<DowsingQueryEntity, DowsingFilter> {
  constructor(queries: DowsingQueriesRepository) {
    super(queries);
  }
}
