import type { AuditEvent, AuditEventExportFilters } from '@sas/sdk';
import { useMutation } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { type FormEvent, Fragment, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import { saveFile } from '../../components/save-file';
import { actionGroups, AUDIT_ACTIONS } from './audit-actions';
import { AUDIT_PER_PAGE, type AuditSearch, validateAuditSearch } from './audit-search';
import './audit-log.css';

const NDJSON = 'application/x-ndjson';
const DEFAULT_PER_PAGE = 25;
const route = getRouteApi('/organisation/audit-log');

/** The start of a day of the browser's zone, as the API's ISO 8601 (`days` later). */
function startOf(day: string, days = 0): string {
  const date = new Date(`${day}T00:00:00`);
  date.setDate(date.getDate() + days);
  return date.toISOString();
}

/** The API's filters for the address's: the days cover whole days, "to" included. */
function apiFilters(search: AuditSearch): AuditEventExportFilters {
  return {
    action: search.action,
    actor_id: search.actor_id,
    target_id: search.target_id,
    created_after: search.from ? startOf(search.from) : undefined,
    created_before: search.to ? startOf(search.to, 1) : undefined,
  };
}

const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * The organisation's audit log in the current mode, newest first: filters in
 * the address, a page at a time, each event's changes and origin on demand,
 * and the whole selection exported as NDJSON.
 */
export function AuditLogPage() {
  const { client, tokens } = useSession();
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const filters = apiFilters(search);
  const perPage = search.per_page ?? DEFAULT_PER_PAGE;
  const filtered = Object.values(filters).some((value) => value !== undefined);
  const pages = useCursorPages(['audit-events', tokens.mode, filters, perPage], (cursor) =>
    client.auditEvents.list({ ...filters, per_page: perPage }).page(cursor),
  );
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <>
      <h1>Audit log</h1>
      <p className="muted">
        Every security-relevant change in your organisation in {tokens.mode} mode, newest first: API
        keys, OAuth clients, webhooks, sign-in connections, SCIM tokens, people, sign-ins and
        deletions. Who acted, on what, from where and what changed; secrets never.
      </p>
      <FilterForm
        key={JSON.stringify(search)}
        search={search}
        onSearch={(next) => void navigate({ to: '/organisation/audit-log', search: next })}
      />
      <section aria-labelledby="audit-events">
        <h2 id="audit-events">
          {filtered ? 'Matching events' : 'All events'}
          {pages.query.isSuccess && <span className="muted"> ({pages.total})</span>}
        </h2>
        <Export filters={filters} />
        {pages.query.isSuccess && pages.items.length === 0 && (
          <p>
            {filtered ? (
              <>
                No event matches these filters.{' '}
                <Link to="/organisation/audit-log" search={{}}>
                  Clear the filters
                </Link>{' '}
                to see every event.
              </>
            ) : (
              `No events in ${tokens.mode} mode yet. They appear as keys, clients, webhooks, connections and people change.`
            )}
          </p>
        )}
        {pages.items.length > 0 && (
          <table className="audit-events">
            <caption className="visually-hidden">Audit events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">IP address</th>
                <th scope="col">
                  <span className="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((event) => (
                <Fragment key={event.id}>
                  <tr>
                    <th scope="row">
                      <time dateTime={event.created_at}>{when(event.created_at)}</time>
                    </th>
                    <td>
                      <code>{event.action}</code>
                    </td>
                    <td>
                      {event.actor.type} <code>{event.actor.id}</code>
                    </td>
                    <td>
                      {event.target.type} <code>{event.target.id}</code>
                    </td>
                    <td>{event.ip ?? <span className="muted">none</span>}</td>
                    <td>
                      <button
                        type="button"
                        aria-expanded={open.has(event.id)}
                        aria-controls={`audit-detail-${event.id}`}
                        onClick={() => toggle(event.id)}
                      >
                        Details{' '}
                        <span className="visually-hidden">
                          of {event.action} at {when(event.created_at)}
                        </span>
                      </button>
                    </td>
                  </tr>
                  {open.has(event.id) && (
                    <tr id={`audit-detail-${event.id}`} className="audit-detail">
                      <td colSpan={6}>
                        <EventDetail event={event} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        )}
        <Pager pages={pages} label="Audit events" />
      </section>
    </>
  );
}

function FilterForm({
  search,
  onSearch,
}: {
  search: AuditSearch;
  onSearch: (search: AuditSearch) => void;
}) {
  const [action, setAction] = useState(search.action ?? '');
  const [actorId, setActorId] = useState(search.actor_id ?? '');
  const [targetId, setTargetId] = useState(search.target_id ?? '');
  const [from, setFrom] = useState(search.from ?? '');
  const [to, setTo] = useState(search.to ?? '');
  const [perPage, setPerPage] = useState(String(search.per_page ?? DEFAULT_PER_PAGE));
  // An action from the address the list lacks (a plugged kind's `<kind>.deleted`) is offered too.
  const actions: readonly string[] =
    search.action && !(AUDIT_ACTIONS as readonly string[]).includes(search.action)
      ? [...AUDIT_ACTIONS, search.action]
      : AUDIT_ACTIONS;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(
      validateAuditSearch({
        action,
        actor_id: actorId,
        target_id: targetId,
        from,
        to,
        per_page: perPage === String(DEFAULT_PER_PAGE) ? undefined : perPage,
      }),
    );
  };
  return (
    <form className="form audit-filters" role="search" aria-label="Audit events" onSubmit={submit}>
      <div className="audit-fields">
        <div>
          <label htmlFor="audit-action">Action</label>
          <select
            id="audit-action"
            value={action}
            onChange={(event) => setAction(event.target.value)}
          >
            <option value="">Any action</option>
            {actionGroups(actions).map(([noun, members]) => (
              <optgroup key={noun} label={noun}>
                {members.map((value) => (
                  <option key={value} value={value}>
                    {value}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="audit-actor">Actor id</label>
          <input
            id="audit-actor"
            value={actorId}
            placeholder="usr_…, key_…, a client id"
            onChange={(event) => setActorId(event.target.value)}
          />
        </div>
        <div>
          <label htmlFor="audit-target">Target id</label>
          <input
            id="audit-target"
            value={targetId}
            placeholder="key_…, sso_…, analyst_…"
            onChange={(event) => setTargetId(event.target.value)}
          />
        </div>
        <div>
          <label htmlFor="audit-from">From date</label>
          <input
            id="audit-from"
            type="date"
            value={from}
            onChange={(event) => setFrom(event.target.value)}
          />
        </div>
        <div>
          <label htmlFor="audit-to">To date (inclusive)</label>
          <input
            id="audit-to"
            type="date"
            value={to}
            onChange={(event) => setTo(event.target.value)}
          />
        </div>
        <div>
          <label htmlFor="audit-per-page">Per page</label>
          <select
            id="audit-per-page"
            value={perPage}
            onChange={(event) => setPerPage(event.target.value)}
          >
            {AUDIT_PER_PAGE.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="actions">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={() => onSearch({})}>
          Clear filters
        </button>
      </div>
    </form>
  );
}

/** Every event the filters select (all pages), downloaded as one NDJSON file. */
function Export({ filters }: { filters: AuditEventExportFilters }) {
  const { client, tokens } = useSession();
  const exported = useMutation({
    mutationFn: async () => {
      // The API's NDJSON answer (Accept: application/x-ndjson), read line by line, saved as lines.
      const lines: string[] = [];
      for await (const event of client.auditEvents.export(filters)) {
        lines.push(`${JSON.stringify(event)}\n`);
      }
      const name = `audit-events-${tokens.mode}-${new Date().toISOString().slice(0, 10)}.ndjson`;
      saveFile(new Blob(lines, { type: NDJSON }), name);
      return { name, count: lines.length };
    },
  });
  return (
    <div className="audit-export">
      <div className="actions">
        <button
          type="button"
          aria-describedby="audit-export-help"
          disabled={exported.isPending}
          onClick={() => exported.mutate()}
        >
          {exported.isPending ? 'Exporting…' : 'Export'}
        </button>
      </div>
      <p id="audit-export-help" className="muted">
        Downloads every event these filters select, all pages, as NDJSON: one JSON object a line.
      </p>
      {exported.isError && <ApiError error={exported.error} />}
      {exported.isSuccess && (
        <p role="status">
          Exported {exported.data.count} {exported.data.count === 1 ? 'event' : 'events'} to{' '}
          <code>{exported.data.name}</code>.
        </p>
      )}
    </div>
  );
}

/** A value of a change or a detail as people read it; structures as indented JSON. */
function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="muted">none</span>;
  if (typeof value === 'string') return <code>{value}</code>;
  return <code className="audit-json">{JSON.stringify(value, null, 2)}</code>;
}

/** An event's changes, details and origin, under its row. */
function EventDetail({ event }: { event: AuditEvent }) {
  const changes = Object.entries(event.changes ?? {});
  const details = Object.entries(event.details ?? {});
  return (
    <div className="audit-detail-body">
      <h3>Changes</h3>
      {changes.length === 0 ? (
        <p className="muted">No field changes recorded.</p>
      ) : (
        <table>
          <caption className="visually-hidden">
            Changes of {event.action} on {event.target.id}
          </caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map(([field, { before, after }]) => (
              <tr key={field}>
                <th scope="row">{field}</th>
                <td>
                  <Value value={before} />
                </td>
                <td>
                  <Value value={after} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {details.length > 0 && (
        <>
          <h3>Details</h3>
          <dl className="org-facts">
            {details.map(([name, value]) => (
              <Fragment key={name}>
                <dt>{name}</dt>
                <dd>
                  <Value value={value} />
                </dd>
              </Fragment>
            ))}
          </dl>
        </>
      )}
      <h3>Origin</h3>
      <dl className="org-facts">
        <dt>Event id</dt>
        <dd>
          <code>{event.id}</code>
        </dd>
        <dt>Request id</dt>
        <dd>
          {event.request_id ? (
            <code>{event.request_id}</code>
          ) : (
            <span className="muted">none (the service acted on its own)</span>
          )}
        </dd>
        <dt>User agent</dt>
        <dd>{event.user_agent ?? <span className="muted">none</span>}</dd>
        <dt>IP address</dt>
        <dd>{event.ip ?? <span className="muted">none</span>}</dd>
        <dt>Mode</dt>
        <dd>{event.mode}</dd>
      </dl>
      <p>
        <Link to="/organisation/audit-log" search={{ actor_id: event.actor.id }}>
          Every event by {event.actor.type} {event.actor.id}
        </Link>
        {' · '}
        <Link to="/organisation/audit-log" search={{ target_id: event.target.id }}>
          Every event on {event.target.type} {event.target.id}
        </Link>
      </p>
    </div>
  );
}
