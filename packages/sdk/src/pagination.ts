/** A version 2 list page: the items and an opaque cursor to the next page. */
export interface CursorPage<T> {
  data: T[];
  pagination: { next_cursor: string | null; has_next: boolean; total: number };
}

/** A version 1 list page: the items at `offset`, and whether more follow. */
export interface OffsetPage<T> {
  results: T[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

/**
 * Every item of a list, page after page, fetched as the caller iterates
 * (`for await (const session of client.sessions.list())`). `pages()` gives
 * the pages themselves; `toArray(max)` collects up to `max` items.
 */
export class ListIterator<T, P> implements AsyncIterable<T> {
  constructor(
    private readonly firstPage: () => Promise<P>,
    private readonly nextPage: (page: P) => Promise<P> | null,
    private readonly itemsOf: (page: P) => T[],
  ) {}

  async *pages(): AsyncGenerator<P> {
    let page: P | null = await this.firstPage();
    while (page !== null) {
      yield page;
      const next = this.nextPage(page);
      page = next === null ? null : await next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  /** Up to `max` items (all of them when absent). */
  async toArray(max = Infinity): Promise<T[]> {
    const items: T[] = [];
    if (max <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }
}

/**
 * A version 2 list, which follows `pagination.next_cursor` until it is null;
 * `page(cursor)` reads one page alone, for interfaces that show a page at a
 * time (the dashboard's "Next page").
 */
export class CursorList<T> extends ListIterator<T, CursorPage<T>> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>) {
    super(
      () => fetchPage(undefined),
      (page) => (page.pagination.next_cursor ? fetchPage(page.pagination.next_cursor) : null),
      (page) => page.data,
    );
  }

  /** The first page, or the page a `next_cursor` points at. */
  page(cursor?: string): Promise<CursorPage<T>> {
    return this.fetchPage(cursor);
  }
}

export function cursorList<T>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
): CursorList<T> {
  return new CursorList(fetchPage);
}

/** A version 1 list: moves `offset` on by the page's items while `has_more`. */
export function offsetList<T>(
  fetchPage: (offset: number) => Promise<OffsetPage<T>>,
  startOffset = 0,
): ListIterator<T, OffsetPage<T>> {
  return new ListIterator(
    () => fetchPage(startOffset),
    (page) =>
      page.has_more && page.results.length > 0
        ? fetchPage(page.offset + page.results.length)
        : null,
    (page) => page.results,
  );
}
