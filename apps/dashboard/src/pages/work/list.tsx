import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useSession } from '../../auth/session';
import { useCursorPages } from '../../components/cursor-pages';
import { PagedTable } from '../../components/paged-table';
import { ControlField, Options } from './common';
import { CreateWorkForm } from './create-form';
import type { ListPath, LiveWork, WorkKind } from './kind';
import { apiFilters, PER_PAGE, searchOf, type WorkFilter, type WorkSearch } from './search';

/** A kind's page: its heading, the form that creates work, and the list. */
export function WorkListPage<Item, Work extends LiveWork, Body, Created>({
  kind,
}: {
  kind: WorkKind<Item, Work, Body, Created>;
}) {
  return (
    <>
      <h1>{kind.title}</h1>
      <CreateWorkForm kind={kind} />
      <WorkList kind={kind} />
    </>
  );
}

/**
 * Changes some of a list's filters in the address (replacing the entry, so
 * Back leaves the list rather than stepping through its filters).
 */
function useSearchUpdate(to: ListPath, search: WorkSearch, filters: readonly WorkFilter[]) {
  const navigate = useNavigate();
  return (patch: WorkSearch) =>
    void navigate({ to, search: searchOf(filters)({ ...search, ...patch }), replace: true });
}

/**
 * The list of a kind's work under its heading: the filters, then the table a
 * page at a time, with what to do when nothing is there.
 */
function WorkList<Item, Work extends LiveWork, Body, Created>({
  kind,
}: {
  kind: WorkKind<Item, Work, Body, Created>;
}) {
  const { client, tokens } = useSession();
  const { list } = kind;
  const search = useSearch({ from: kind.path });
  const update = useSearchUpdate(kind.path, search, list.filters);
  const typedFilters = list.filters.filter((filter) => filter.control === 'typed');
  const [typed, setTyped] = useState(() =>
    Object.fromEntries(typedFilters.map(({ key }) => [key, search[key]?.toString() ?? ''])),
  );
  const applyTyped = () =>
    update(
      Object.fromEntries(typedFilters.map(({ key }) => [key, typed[key]!.trim() || undefined])),
    );
  const filters = apiFilters(list.filters, search);
  const pages = useCursorPages([kind.keys.list, tokens.mode, filters], (cursor) =>
    kind.api(client).list(filters).page(cursor),
  );
  const [first, ...rest] = list.columns;
  return (
    <section aria-labelledby={list.id}>
      <h2 id={list.id}>{list.heading}</h2>
      <form
        className="work-filters"
        aria-label={list.filtersLabel}
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          if (typedFilters.length) applyTyped();
        }}
      >
        {list.filters.map((filter) =>
          filter.control === 'typed' ? (
            <ControlField
              key={filter.key}
              as="input"
              label={filter.label}
              fields={[]}
              {...filter.input}
              value={typed[filter.key]!}
              onChange={(value) => setTyped({ ...typed, [filter.key]: value })}
              onBlur={applyTyped}
            />
          ) : (
            <ControlField
              key={filter.key}
              label={filter.label}
              fields={[]}
              {...(filter.control === 'select'
                ? { as: 'select', children: <Options values={filter.values} any={filter.any} /> }
                : { as: 'input', type: 'date' })}
              value={search[filter.key]?.toString() ?? ''}
              onChange={(value) => update({ [filter.key]: value || undefined })}
            />
          ),
        )}
        <ControlField
          as="select"
          label="Per page"
          fields={[]}
          value={String(search.per_page ?? 25)}
          onChange={(value) => update({ per_page: Number(value) })}
        >
          {PER_PAGE.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </ControlField>
        {typedFilters.length > 0 && (
          <button type="submit" className="visually-hidden" tabIndex={-1}>
            Apply filters
          </button>
        )}
      </form>
      <PagedTable
        pages={pages}
        empty={Object.keys(filters).length > 1 ? list.empty.filtered : list.empty.none}
        caption={list.caption}
        columns={list.columns.map(({ label, number }) => ({
          label,
          ...(number ? { className: 'work-number' } : {}),
        }))}
        rowKey={list.idOf}
        row={(item) => (
          <>
            <th scope="row">
              <Link {...kind.link(list.idOf(item))}>{first!.cell(item)}</Link>
            </th>
            {rest.map(({ label, number, cell }) => (
              <td key={label} className={number ? 'work-number' : undefined}>
                {cell(item)}
              </td>
            ))}
          </>
        )}
        label={kind.title}
      />
    </section>
  );
}
