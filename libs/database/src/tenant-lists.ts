import type { Tenant } from '#common';
import {
  keysetPage,
  SqlConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
} from './keyset-page.js';
import type { RowMapping } from './row-mapping.js';
import type { Queryable } from './connection.js';
import type { Sql } from './sql.js';

/** Where a list reads: a read replica when one is usable (Sql.reader), or always the primary. */
export type ListReads = 'replicas' | 'primary';

/**
 * The two lists every kind of work offers over a table with `id`,
 * `organization_id`, `mode` and `created_at`, newest first: version 1's
 * offset pages (with the exact total) and version 2's keyset pages. The
 * caller builds the conditions (the tenant's first, from `tenantConditions`),
 * so each table's indexes serve its own filters. With `reads: 'replicas'`
 * both read from a replica that has replayed the tenant's own writes.
 */
export class TenantLists<E, C extends string> {
  constructor(
    private readonly sql: Sql,
    private readonly table: string,
    private readonly rows: RowMapping<E, C>,
    private readonly reads: ListReads = 'primary',
  ) {}

  private reader(tenant: Tenant): Promise<Queryable> | Queryable {
    return this.reads === 'replicas' ? this.sql.reader(tenant) : this.sql;
  }

  /** An offset page (`limit`, `offset`) and the total matching, from two builds of the same conditions. */
  async list(
    tenant: Tenant,
    conditions: () => SqlConditions,
    page: { limit: number; offset: number },
  ): Promise<{ records: E[]; total: number }> {
    const where = conditions();
    const counted = conditions();
    const sql = await this.reader(tenant);
    const [rows, [{ total }]] = await Promise.all([
      sql.rows<Record<C, unknown>>(
        `SELECT ${this.rows.selectList} FROM ${this.table} WHERE ${where.sql}
          ORDER BY created_at DESC, id DESC
          LIMIT ${where.param(page.limit)} OFFSET ${where.param(page.offset)}`,
        where.parameters,
      ),
      sql.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM ${this.table} WHERE ${counted.sql}`,
        counted.parameters,
      ) as Promise<[{ total: number }]>,
    ]);
    return { records: rows.map((row) => this.rows.fromRow(row)), total };
  }

  /** A keyset page (keysetPage): the page's ids and rows in one statement. */
  async page(tenant: Tenant, where: SqlConditions, request: PageRequest): Promise<KeysetPage<E>> {
    const sql = await this.reader(tenant);
    return keysetPage(
      (text, parameters) => sql.rows(text, parameters),
      {
        table: this.table,
        where,
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) =>
          (
            await sql.rows<Record<C, unknown>>(
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
