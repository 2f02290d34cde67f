import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import type { KeysetPage, PageRequest } from '#database';
import { DowsingQueriesRepository, type DowsingFilter } from './dowsing-queries.repository.js';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

/**
 * The lists of a tenant's dowsing queries, newest first: v1's offset pages
 * and v2's keyset pages, with the same filters, read from a replica when
 * one is usable.
 */
@Injectable()
export class DowsingListsService {
  constructor(private readonly queries: DowsingQueriesRepository) {}

  list(
    tenant: Tenant,
    filter: DowsingFilter,
    page: { limit: number; offset: number },
  ): Promise<{ records: DowsingQueryEntity[]; total: number }> {
    return this.queries.list(tenant, filter, page);
  }

  page(
    tenant: Tenant,
    filter: DowsingFilter,
    request: PageRequest,
  ): Promise<KeysetPage<DowsingQueryEntity>> {
    return this.queries.page(tenant, filter, request);
  }
}
