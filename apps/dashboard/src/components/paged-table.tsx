import type { ReactNode } from 'react';
import { type CursorPages, Pager } from './cursor-pages';

/** A column of a paged table: its heading, and a class for its heading cell. */
export interface Column {
  label: string;
  className?: string;
}

/**
 * A cursor-paged list as a table: what to do when it is empty, the rows of
 * the current page (each row's first cell a row header), and the pager.
 */
export function PagedTable<T>({
  pages,
  empty,
  caption,
  columns,
  rowKey,
  row,
  label,
}: {
  pages: CursorPages<T>;
  /** Shown when the page read has no rows: what to do next. */
  empty: ReactNode;
  /** The table's caption, for screen readers. */
  caption: string;
  columns: Column[];
  rowKey: (item: T) => string;
  /** A row's cells. */
  row: (item: T) => ReactNode;
  /** The pager's name ("Sessions" → "Sessions pages"). */
  label: string;
}) {
  return (
    <>
      {pages.query.isSuccess && pages.items.length === 0 && <p>{empty}</p>}
      {pages.items.length > 0 && (
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column.label} scope="col" className={column.className}>
                  {column.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {pages.items.map((item) => (
              <tr key={rowKey(item)}>{row(item)}</tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager pages={pages} label={label} />
    </>
  );
}
