import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import type { KeysetPage, PageRequest } from '#database';
import { AnalysesRepository, type AnalysisFilter } from './analyses.repository.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';

/**
 * The lists of a tenant's analyses, newest first: v1's offset pages and v2's
 * keyset pages, with the same filters, read from a replica when one is usable.
 */
@Injectable()
export class AnalysisListsService {
  constructor(private readonly analyses: AnalysesRepository) {}

  list(
    tenant: Tenant,
    filter: AnalysisFilter,
    page: { limit: number; offset: number },
  ): Promise<{ records: AnalysisEntity[]; total: number }> {
    return this.analyses.list(tenant, filter, page);
  }

  page(
    tenant: Tenant,
    filter: AnalysisFilter,
    request: PageRequest,
  ): Promise<KeysetPage<AnalysisEntity>> {
    return this.analyses.page(tenant, filter, request);
  }
}
