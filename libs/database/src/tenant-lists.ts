import type { Tenant } from '#common';
import {
  keysetPage,
  SqlConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
} from './keyset-page.js';
import type { RowMapping } from './row-mapping.js';
import type { Sql } from './sql.js';

/**
 * The two lists every kind of work offers over a table with `id`,
 * `organization_id`, `mode` and `created_at`, newest first: version 1's
 * offset pages (with the exact total) and version 2's keyset pages. The
 * caller builds the conditions (the tenant's first, from `tenantConditions`),
 * so each table's indexes serve its own filters.
 */
export class TenantLists<E, C extends string> {
  constructor(
    private readonly sql: Sql,
    private readonly table: string,
    private readonly rows: RowMapping<E, C>,
  ) {}

  /** An offset page (`limit`, `offset`) and the total matching, from two builds of the same conditions. */
  async list(
    conditions: () => SqlConditions,
    page: { limit: number; offset: number },
  ): Promise<{ records: E[]; total: number }> {
    const where = conditions();
    const counted = conditions();
    const [rows, [{ total }]] = await Promise.all([
      this.sql.rows<Record<C, unknown>>(
        `SELECT ${this.rows.selectList} FROM ${this.table} WHERE ${where.sql}
          ORDER BY created_at DESC, id DESC
          LIMIT ${where.param(page.limit)} OFFSET ${where.param(page.offset)}`,
        where.parameters,
      ),
      this.sql.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM ${this.table} WHERE ${counted.sql}`,
        counted.parameters,
      ) as Promise<[{ total: number }]>,
    ]);
    return { records: rows.map((row) => this.rows.fromRow(row)), total };
  }

  /** A keyset page (keysetPage): the page's ids and rows in one statement. */
  page(tenant: Tenant, where: SqlConditions, request: PageRequest): Promise<KeysetPage<E>> {
    return keysetPage(
      (text, parameters) => this.sql.rows(text, parameters),
      {
        table: this.table,
        where,
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) =>
          (
            await this.sql.rows<Record<C, unknown>>(
              `SELECT ${this.rows.selectList} FROM ${this.table} WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map((row) => this.rows.fromRow(row)),
      },
      request,
    );
  }
}

/** Conditions that start with the tenant: its organisation and mode. */
export function tenantConditions(tenant: Tenant): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(tenant.organizationId)}`);
  where.and(`mode = ${where.param(tenant.mode)}`);
  return where;
}
