import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import {
  keysetPage,
  Sql,
  SqlConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
} from '#database';
import type { AnalysisPriority, AnalysisTargetType } from '#engines';
import { ANALYSIS_COLUMNS, analysisFromRow, type AnalysisRow } from './analysis-rows.js';
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
  constructor(private readonly sql: Sql) {}

  async list(
    tenant: Tenant,
    filter: AnalysisFilter,
    page: { limit: number; offset: number },
  ): Promise<{ records: AnalysisEntity[]; total: number }> {
    const where = conditions(tenant, filter);
    const counted = conditions(tenant, filter);
    const [rows, [{ total }]] = await Promise.all([
      this.sql.rows<AnalysisRow>(
        `SELECT ${ANALYSIS_COLUMNS.join(', ')} FROM analyses WHERE ${where.sql}
          ORDER BY created_at DESC, id DESC
          LIMIT ${where.param(page.limit)} OFFSET ${where.param(page.offset)}`,
        where.parameters,
      ),
      this.sql.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM analyses WHERE ${counted.sql}`,
        counted.parameters,
      ) as Promise<[{ total: number }]>,
    ]);
    return { records: rows.map(analysisFromRow), total };
  }

  async page(
    tenant: Tenant,
    filter: AnalysisFilter,
    request: PageRequest,
  ): Promise<KeysetPage<AnalysisEntity>> {
    return keysetPage(
      (text, parameters) => this.sql.rows(text, parameters),
      {
        table: 'analyses',
        where: conditions(tenant, filter),
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) =>
          (
            await this.sql.rows<AnalysisRow>(
              `SELECT ${ANALYSIS_COLUMNS.join(', ')} FROM analyses WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map(analysisFromRow),
      },
      request,
    );
  }
}

function conditions(tenant: Tenant, filter: AnalysisFilter): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(tenant.organizationId)}`);
  where.and(`mode = ${where.param(tenant.mode)}`);
  if (filter.status) where.and(`status = ${where.param(filter.status)}`);
  if (filter.targetType) where.and(`target_type = ${where.param(filter.targetType)}`);
  if (filter.priority) where.and(`priority = ${where.param(filter.priority)}`);
  return where;
}
