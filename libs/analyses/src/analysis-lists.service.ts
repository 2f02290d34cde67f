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
import type { AnalysisPriority, AnalysisTargetType } from '#engines';
import { ANALYSIS_ROWS } from './analysis-rows.js';
import type { AnalysisEntity, AnalysisStatus } from './entities/analysis.entity.js';

export interface AnalysisFilter {
  status?: AnalysisStatus | undefined;
  targetType?: AnalysisTargetType | undefined;
  priority?: AnalysisPriority | undefined;
}

/**
 * The lists of a tenant's analyses, newest first: v1's offset pages and v2's
 * keyset pages, with the same filters. The (organisation, mode, created_at)
 * and (organisation, mode, status, created_at) indexes INCLUDE the other
 * filtered columns, so the filters are checked inside the index.
 */
@Injectable()
export class AnalysisListsService {
  private readonly lists: TenantLists<AnalysisEntity, string>;

  constructor(sql: Sql) {
    this.lists = new TenantLists(sql, 'analyses', ANALYSIS_ROWS, 'replicas');
  }

  list(
    tenant: Tenant,
    filter: AnalysisFilter,
    page: { limit: number; offset: number },
  ): Promise<{ records: AnalysisEntity[]; total: number }> {
    return this.lists.list(tenant, () => conditions(tenant, filter), page);
  }

  page(
    tenant: Tenant,
    filter: AnalysisFilter,
    request: PageRequest,
  ): Promise<KeysetPage<AnalysisEntity>> {
    return this.lists.page(tenant, conditions(tenant, filter), request);
  }
}

function conditions(tenant: Tenant, filter: AnalysisFilter): SqlConditions {
  const where = tenantConditions(tenant);
  if (filter.status) where.and(`status = ${where.param(filter.status)}`);
  if (filter.targetType) where.and(`target_type = ${where.param(filter.targetType)}`);
  if (filter.priority) where.and(`priority = ${where.param(filter.priority)}`);
  return where;
}
