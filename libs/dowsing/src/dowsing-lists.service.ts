import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import {
  Sql,
  tenantConditions,
  TenantLists,
  type KeysetPage,
  type PageRequest,
  type SqlConditions,
} from '#database';
import type { DowsingQueryType, DowsingVariant } from '#engines';
import { QUERY_ROWS } from './dowsing-rows.js';
import type { DowsingQueryEntity, DowsingStatus } from './entities/dowsing-query.entity.js';

export interface DowsingFilter {
  queryType?: DowsingQueryType | undefined;
  status?: DowsingStatus | undefined;
  variant?: DowsingVariant | undefined;
}

/**
 * The lists of a tenant's dowsing queries, newest first: v1's offset pages
 * and v2's keyset pages, with the same filters. The (organisation, mode,
 * created_at) and (organisation, mode, status, created_at) indexes INCLUDE
 * the other filtered columns.
 */
@Injectable()
export class DowsingListsService {
  private readonly lists: TenantLists<DowsingQueryEntity, string>;

  constructor(sql: Sql) {
    this.lists = new TenantLists(sql, 'dowsing_queries', QUERY_ROWS, 'replicas');
  }

  list(
    tenant: Tenant,
    filter: DowsingFilter,
    page: { limit: number; offset: number },
  ): Promise<{ records: DowsingQueryEntity[]; total: number }> {
    return this.lists.list(tenant, () => conditions(tenant, filter), page);
  }

  page(
    tenant: Tenant,
    filter: DowsingFilter,
    request: PageRequest,
  ): Promise<KeysetPage<DowsingQueryEntity>> {
    return this.lists.page(tenant, conditions(tenant, filter), request);
  }
}

function conditions(tenant: Tenant, filter: DowsingFilter): SqlConditions {
  const where = tenantConditions(tenant);
  if (filter.status) where.and(`status = ${where.param(filter.status)}`);
  if (filter.queryType) where.and(`query_type = ${where.param(filter.queryType)}`);
  if (filter.variant) where.and(`variant = ${where.param(filter.variant)}`);
  return where;
}
