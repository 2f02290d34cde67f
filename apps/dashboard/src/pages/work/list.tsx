import { useNavigate } from '@tanstack/react-router';
import type { FormEvent, ReactNode } from 'react';
import { Pager, type CursorPages } from '../../components/cursor-pages';
import { Field, Options, PER_PAGE } from './common';

/** The three lists of work, whose filters stand in their address. */
type ListPath = '/sessions' | '/analyses' | '/dowsing';

/**
 * Changes some of a list's filters in the address (replacing the entry, so
 * Back leaves the list rather than stepping through its filters).
 */
export function useSearchUpdate<S extends object>(
  to: ListPath,
  search: S,
  validate: (search: Record<string, unknown>) => S,
) {
  const navigate = useNavigate();
  return (patch: Partial<S>) =>
    void navigate({
      to,
      search: validate({ ...search, ...patch }),
      replace: true,
    });
}

/** A filter chosen from an enumeration; "any" clears it. */
export function SelectFilter<T extends string>({
  label,
  value,
  values,
  any,
  onChange,
}: {
  label: string;
  value: T | undefined;
  values: readonly T[];
  any: string;
  onChange: (value: T | undefined) => void;
}) {
  return (
    <Field label={label} fields={[]}>
      {(props) => (
        <select
          {...props}
          value={value ?? ''}
          onChange={(event) => onChange((event.target.value || undefined) as T | undefined)}
        >
          <Options values={values} any={any} />
        </select>
      )}
    </Field>
  );
}

/** How many rows a page shows (25 unless chosen). */
export function PerPageFilter({
  value,
  onChange,
}: {
  value: number | undefined;
  onChange: (value: number) => void;
}) {
  return (
    <Field label="Per page" fields={[]}>
      {(props) => (
        <select
          {...props}
          value={value ?? 25}
          onChange={(event) => onChange(Number(event.target.value))}
        >
          {PER_PAGE.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A column of a work list; numbers are set right. */
export interface Column {
  label: string;
  number?: boolean;
}

/**
 * A list of work under its heading: the filters, what to do when nothing is
 * there, the table a page at a time, and the pager.
 */
export function WorkList<T>({
  id,
  heading,
  filtersLabel,
  onApply,
  filters,
  pages,
  filtered,
  empty,
  caption,
  columns,
  rowKey,
  row,
  pagerLabel,
}: {
  /** The heading's id, which names the section. */
  id: string;
  heading: string;
  filtersLabel: string;
  /** On Enter in the filters (typed filters apply then); by default nothing. */
  onApply?: () => void;
  filters: ReactNode;
  pages: CursorPages<T>;
  /** Whether any filter is set, which decides the empty state's advice. */
  filtered: boolean;
  empty: { filtered: string; none: string };
  caption: string;
  columns: Column[];
  rowKey: (item: T) => string;
  /** A row's cells, its first a row header. */
  row: (item: T) => ReactNode;
  pagerLabel: string;
}) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{heading}</h2>
      <form
        className="work-filters"
        aria-label={filtersLabel}
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          onApply?.();
        }}
      >
        {filters}
      </form>
      {pages.query.isSuccess && pages.items.length === 0 && (
        <p>{filtered ? empty.filtered : empty.none}</p>
      )}
      {pages.items.length > 0 && (
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <th
                  key={column.label}
                  scope="col"
                  className={column.number ? 'work-number' : undefined}
                >
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
      <Pager pages={pages} label={pagerLabel} />
    </section>
  );
}
