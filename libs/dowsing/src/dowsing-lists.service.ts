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
import type { DowsingQueryType, DowsingVariant } from '#engines';
import { QUERY_ROWS } from './dowsing-rows.js';
import type { DowsingQueryEntity, DowsingStatus } from './entities/dowsing-query.entity.js';

export interface DowsingFilter {
  queryType?: DowsingQueryType | undefined;
  status?: DowsingStatus | undefined;
  variant?: DowsingVariant | undefined;
}

type QueryRow = Parameters<typeof QUERY_ROWS.fromRow>[0];

/** The lists of a tenant's dowsing queries, newest first: v1's offset pages and v2's keyset pages. */
@Injectable()
export class DowsingListsService {
  constructor(private readonly sql: Sql) {}

  async list(
    tenant: Tenant,
    filter: DowsingFilter,
    page: { limit: number; offset: number },
  ): Promise<{ records: DowsingQueryEntity[]; total: number }> {
    const where = conditions(tenant, filter);
    const counted = conditions(tenant, filter);
    const [rows, [{ total }]] = await Promise.all([
      this.sql.rows<QueryRow>(
        `SELECT ${QUERY_ROWS.selectList} FROM dowsing_queries WHERE ${where.sql}
          ORDER BY created_at DESC, id DESC
          LIMIT ${where.param(page.limit)} OFFSET ${where.param(page.offset)}`,
        where.parameters,
      ),
      this.sql.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM dowsing_queries WHERE ${counted.sql}`,
        counted.parameters,
      ) as Promise<[{ total: number }]>,
    ]);
    return { records: rows.map((row) => QUERY_ROWS.fromRow(row)), total };
  }

  async page(
    tenant: Tenant,
    filter: DowsingFilter,
    request: PageRequest,
  ): Promise<KeysetPage<DowsingQueryEntity>> {
    return keysetPage(
      (text, parameters) => this.sql.rows(text, parameters),
      {
        table: 'dowsing_queries',
        where: conditions(tenant, filter),
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) =>
          (
            await this.sql.rows<QueryRow>(
              `SELECT ${QUERY_ROWS.selectList} FROM dowsing_queries WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map((row) => QUERY_ROWS.fromRow(row)),
      },
      request,
    );
  }
}

function conditions(tenant: Tenant, filter: DowsingFilter): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(tenant.organizationId)}`);
  where.and(`mode = ${where.param(tenant.mode)}`);
  if (filter.status) where.and(`status = ${where.param(filter.status)}`);
  if (filter.queryType) where.and(`query_type = ${where.param(filter.queryType)}`);
  if (filter.variant) where.and(`variant = ${where.param(filter.variant)}`);
  return where;
}
