import type { CursorPage } from '@sas/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../api-error';

/**
 * One page of a version 2 list at a time, with the cursors walked so far so
 * "Previous page" needs no cursor of its own. `key` holds the list's filters:
 * when it changes, paging starts again from the first page.
 */
export function useCursorPages<T>(
  key: readonly unknown[],
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
  options: {
    /** Read the page again this often while it says so (work still under way), in ms. */
    refetchInterval?: (page: CursorPage<T> | undefined) => number | false;
  } = {},
) {
  const filters = JSON.stringify(key);
  const [trail, setTrail] = useState<{ filters: string; cursors: (string | undefined)[] }>({
    filters,
    cursors: [undefined],
  });
  const cursors = trail.filters === filters ? trail.cursors : [undefined];
  const cursor = cursors[cursors.length - 1];
  const query = useQuery({
    queryKey: [...key, 'page', cursor ?? null],
    queryFn: () => fetchPage(cursor),
    placeholderData: keepPreviousData,
    refetchInterval: options.refetchInterval
      ? (current) => options.refetchInterval!(current.state.data)
      : false,
  });
  const nextCursor = query.data?.pagination.next_cursor ?? null;
  return {
    query,
    items: query.data?.data ?? [],
    total: query.data?.pagination.total ?? 0,
    pageNumber: cursors.length,
    hasPrevious: cursors.length > 1,
    hasNext: nextCursor !== null,
    next: () => {
      if (nextCursor !== null) setTrail({ filters, cursors: [...cursors, nextCursor] });
    },
    previous: () => setTrail({ filters, cursors: cursors.slice(0, -1) }),
  };
}

export type CursorPages<T> = ReturnType<typeof useCursorPages<T>>;

/** Loading, errors, the empty state, and Previous / Next under a paged list. */
export function Pager<T>({ pages, label }: { pages: CursorPages<T>; label: string }) {
  const { query } = pages;
  return (
    <>
      {query.isPending && <p>Loading…</p>}
      {query.isError && <ApiError error={query.error} />}
      {(pages.hasPrevious || pages.hasNext) && (
        <nav className="pager" aria-label={`${label} pages`}>
          <button type="button" disabled={!pages.hasPrevious} onClick={pages.previous}>
            Previous page
          </button>
          <span aria-live="polite">
            Page {pages.pageNumber}, {pages.total} in all
          </span>
          <button
            type="button"
            disabled={!pages.hasNext || query.isPlaceholderData}
            onClick={pages.next}
          >
            Next page
          </button>
        </nav>
      )}
    </>
  );
}
