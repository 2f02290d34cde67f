import { useNavigate } from '@tanstack/react-router';
import type { FormEvent, ReactNode } from 'react';
import type { CursorPages } from '../../components/cursor-pages';
import { PagedTable } from '../../components/paged-table';
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

/**
 * A list of work under its heading: the filters, then the table a page at a
 * time, with what to do when nothing is there.
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
  /** The columns' headings; numbers are set right. */
  columns: { label: string; number?: boolean }[];
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
      <PagedTable
        pages={pages}
        empty={filtered ? empty.filtered : empty.none}
        caption={caption}
        columns={columns.map(({ label, number }) => ({
          label,
          ...(number ? { className: 'work-number' } : {}),
        }))}
        rowKey={rowKey}
        row={row}
        label={pagerLabel}
      />
    </section>
  );
}
