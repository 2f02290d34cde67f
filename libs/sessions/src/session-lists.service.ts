import { Injectable } from '@nestjs/common';
import type { SessionStatus, SessionType, Tenant } from '#common';
import {
  keysetPage,
  Sql,
  SqlConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
} from '#database';
import type { SessionEntity } from './entities/session.entity.js';
import { SESSION_COLUMNS, sessionFromRow, type SessionRow } from './session-rows.js';

/** A comparison of `confidence_score` in a version 2 list filter. */
export const SCORE_OPERATORS = ['eq', 'gt', 'gte', 'lt', 'lte'] as const;
export type ScoreOperator = (typeof SCORE_OPERATORS)[number];
const SQL_COMPARISON: Record<ScoreOperator, string> = {
  eq: '=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

export interface SessionFilter {
  status?: SessionStatus | undefined;
  type?: SessionType | undefined;
  confidenceScore?: { operator: ScoreOperator; value: number }[] | undefined;
  createdAfter?: Date | undefined;
  analystId?: string | undefined;
}

/**
 * The lists of a tenant's sessions: v1's offset pages and v2's filtered
 * keyset pages, read from a replica that has replayed the tenant's own
 * writes when one is configured (Sql.reader).
 */
@Injectable()
export class SessionListsService {
  constructor(private readonly sql: Sql) {}

  /**
   * A page of the caller's sessions, newest first, optionally of one status
   * and type. The (organisation, mode, status, created_at) and (organisation,
   * mode, created_at) indexes serve both orders of filtering.
   */
  async list(
    tenant: Tenant,
    query: { status?: SessionStatus | undefined; type?: SessionType | undefined },
    page: { limit: number; offset: number },
  ): Promise<{ records: SessionEntity[]; total: number }> {
    const filters = [tenant.organizationId, tenant.mode, query.status ?? null, query.type ?? null];
    const where = `organization_id = $1 AND mode = $2
      AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR type = $4)`;
    const sql = await this.sql.reader(tenant);
    const [rows, [{ total }]] = await Promise.all([
      sql.rows<SessionRow>(
        `SELECT ${SESSION_COLUMNS.join(', ')} FROM sessions WHERE ${where}
          ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`,
        [...filters, page.limit, page.offset],
      ),
      sql.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM sessions WHERE ${where}`,
        filters,
      ) as Promise<[{ total: number }]>,
    ]);
    return { records: rows.map(sessionFromRow), total };
  }

  /**
   * A keyset page of the caller's sessions, newest first, with the version 2
   * filters, in any combination. Each filter has an index that leads with it
   * after the tenant (status, analyst, confidence score; created_at is the
   * order) and INCLUDEs the other filtered columns, so PostgreSQL picks the
   * narrowest and checks the rest inside the index (migration
   * 1764057600000). None needs OFFSET.
   */
  async page(
    tenant: Tenant,
    filter: SessionFilter,
    request: PageRequest,
  ): Promise<KeysetPage<SessionEntity>> {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param(tenant.organizationId)}`);
    where.and(`mode = ${where.param(tenant.mode)}`);
    if (filter.status) where.and(`status = ${where.param(filter.status)}`);
    if (filter.type) where.and(`type = ${where.param(filter.type)}`);
    if (filter.createdAfter) where.and(`created_at > ${where.param(filter.createdAfter)}`);
    if (filter.analystId) where.and(`analyst_id = ${where.param(filter.analystId)}`);
    for (const { operator, value } of filter.confidenceScore ?? []) {
      where.and(`confidence_score ${SQL_COMPARISON[operator]} ${where.param(value)}`);
    }
    const sql = await this.sql.reader(tenant);
    return keysetPage(
      (text, parameters) => sql.rows(text, parameters),
      {
        table: 'sessions',
        where,
        scope: tenantScope(tenant),
        // The page's ids and rows in one statement, through the plain-SQL mapper.
        readRows: async (idsSql, parameters) =>
          (
            await sql.rows<SessionRow>(
              `SELECT ${SESSION_COLUMNS.join(', ')} FROM sessions WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map(sessionFromRow),
      },
      request,
    );
  }
}
