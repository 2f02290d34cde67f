import type { Tenant } from '#common';
import type { KeysetPage, PageRequest } from '#database';

/** Where version 1's offset page starts, and how long it is. */
export interface OffsetPageRequest {
  limit: number;
  offset: number;
}

/** An offset page and the total matching. */
export interface OffsetPage<Item> {
  records: Item[];
  total: number;
}

/** The two pages a kind's repository reads of its table, where the kind reads its lists. */
export interface WorkListSource<Item, ListFilter, PageFilter = ListFilter> {
  list(tenant: Tenant, filter: ListFilter, page: OffsetPageRequest): Promise<OffsetPage<Item>>;
  page(tenant: Tenant, filter: PageFilter, request: PageRequest): Promise<KeysetPage<Item>>;
}

/**
 * The lists of a tenant's work of one kind, newest first: version 1's
 * offset pages and version 2's keyset pages. A kind's lib extends it with
 * its repository, so that controllers inject each kind's lists by its own class.
 */
export abstract class WorkListsService<Item, ListFilter, PageFilter = ListFilter> {
  constructor(private readonly source: WorkListSource<Item, ListFilter, PageFilter>) {}

  list(tenant: Tenant, filter: ListFilter, page: OffsetPageRequest): Promise<OffsetPage<Item>> {
    return this.source.list(tenant, filter, page);
  }

  page(tenant: Tenant, filter: PageFilter, request: PageRequest): Promise<KeysetPage<Item>> {
    return this.source.page(tenant, filter, request);
  }
}
