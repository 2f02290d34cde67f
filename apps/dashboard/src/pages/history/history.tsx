import type { HistoryFilters } from '@sas/sdk';
import { getRouteApi, Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useSession } from '../../auth/session';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import { CASE_TYPES, formatDate, Snippet, snippetText, typeLabel, verdictLabel } from './labels';
import { type HistorySearch, validateHistorySearch } from './search';
import './history.css';

const route = getRouteApi('/history');

/** Search the organisation's history (finished work and imported cases) with the API's filters. */
export function HistoryPage() {
  const { client, tokens } = useSession();
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const filters: HistoryFilters = Object.fromEntries(
    Object.entries(search).filter(([, value]) => value !== undefined),
  );
  const filtered = Object.keys(filters).length > 0;
  const pages = useCursorPages(['history-search', tokens.mode, filters], (cursor) =>
    client.history.search(filters).page(cursor),
  );
  return (
    <>
      <h1>History</h1>
      <p>
        Every finished session, analysis and dowsing query is a case here, with imported records.{' '}
        <Link to="/history/import">Import earlier records</Link> or{' '}
        <Link to="/reports">generate a report</Link>.
      </p>
      <SearchForm
        key={JSON.stringify(search)}
        search={search}
        onSearch={(next) => void navigate({ to: '/history', search: next })}
      />
      <section aria-labelledby="results">
        <h2 id="results">
          {filtered ? 'Matching cases' : 'All cases'}
          {pages.query.isSuccess && <span className="muted"> ({pages.total})</span>}
        </h2>
        {pages.query.isSuccess && pages.items.length === 0 && (
          <p>
            {filtered ? (
              <>
                No case matches these filters. Try fewer words or a wider date range, or{' '}
                <Link to="/history" search={{}}>
                  clear the filters
                </Link>
                .
              </>
            ) : (
              <>
                No history yet. Cases appear when sessions, analyses and dowsing queries finish;{' '}
                <Link to="/history/import">import</Link> the records you already have.
              </>
            )}
          </p>
        )}
        {pages.items.length > 0 && (
          <table className="history-results">
            <thead>
              <tr>
                <th scope="col">Target</th>
                <th scope="col">Type</th>
                <th scope="col">Date</th>
                <th scope="col">Outcome</th>
                <th scope="col">Confidence</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((item) => (
                <tr key={item.id}>
                  <th scope="row">
                    <Link to="/history/$caseId" params={{ caseId: item.id }}>
                      {item.target}
                    </Link>
                    {item.snippet && snippetText(item.snippet) !== item.target && (
                      <p className="history-snippet muted">
                        <Snippet html={item.snippet} />
                      </p>
                    )}
                  </th>
                  <td>{typeLabel(item.type)}</td>
                  <td>{formatDate(item.date)}</td>
                  <td>
                    <span className={item.verdict ? `verdict verdict-${item.verdict}` : 'muted'}>
                      {verdictLabel(item.verdict)}
                    </span>
                    {item.outcome && <p className="outcome-text">{item.outcome}</p>}
                  </td>
                  <td>{item.confidence_score === null ? '—' : item.confidence_score.toFixed(2)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager pages={pages} label="Search results" />
      </section>
    </>
  );
}

/** `latitude,longitude,radius_km` split into its three fields. */
function locationParts(location: string | undefined): [string, string, string] {
  const [latitude = '', longitude = '', radius = ''] = location?.split(',') ?? [];
  return [latitude, longitude, radius];
}

function SearchForm({
  search,
  onSearch,
}: {
  search: HistorySearch;
  onSearch: (search: HistorySearch) => void;
}) {
  const [q, setQ] = useState(search.q ?? '');
  const [type, setType] = useState<string>(search.type ?? '');
  const [dateFrom, setDateFrom] = useState(search.date_from ?? '');
  const [dateTo, setDateTo] = useState(search.date_to ?? '');
  const [outcome, setOutcome] = useState<string>(search.outcome ?? '');
  const [[latitude, longitude, radius], setPlace] = useState(locationParts(search.location));
  const [bbox, setBbox] = useState(search.bbox ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const place = [latitude, longitude, radius].map((part) => part.trim());
  const setPart = (index: number, value: string) =>
    setPlace((parts) => parts.map((part, at) => (at === index ? value : part)) as typeof parts);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const given = place.filter((part) => part !== '').length;
    if (given !== 0 && given !== 3) {
      setProblem('Give the latitude, the longitude and the radius together, or none of them.');
      return;
    }
    setProblem(null);
    onSearch(
      validateHistorySearch({
        q,
        type,
        date_from: dateFrom,
        date_to: dateTo,
        outcome,
        location: given === 3 ? place.join(',') : '',
        bbox,
      }),
    );
  };

  return (
    <form className="form history-search" onSubmit={submit} role="search" aria-label="Cases">
      <label htmlFor="history-q">Search text</label>
      <input
        id="history-q"
        type="search"
        value={q}
        aria-describedby="history-q-help"
        onChange={(event) => setQ(event.target.value)}
      />
      <p id="history-q-help" className="muted">
        Words in the target, descriptors, outcome and description. Use{' '}
        <code>&quot;quoted phrases&quot;</code>, <code>OR</code> between alternatives and{' '}
        <code>-word</code> to leave a word out.
      </p>
      <div className="history-filters">
        <div>
          <label htmlFor="history-type">Type</label>
          <select id="history-type" value={type} onChange={(event) => setType(event.target.value)}>
            <option value="">Any type</option>
            {CASE_TYPES.map((entry) => (
              <option key={entry.value} value={entry.value}>
                {entry.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="history-outcome">Outcome</label>
          <select
            id="history-outcome"
            value={outcome}
            onChange={(event) => setOutcome(event.target.value)}
          >
            <option value="">Verified or not</option>
            <option value="verified">Verified (outcome recorded)</option>
            <option value="unverified">Not verified yet</option>
          </select>
        </div>
        <div>
          <label htmlFor="history-from">From date</label>
          <input
            id="history-from"
            type="date"
            value={dateFrom}
            onChange={(event) => setDateFrom(event.target.value)}
          />
        </div>
        <div>
          <label htmlFor="history-to">To date (inclusive)</label>
          <input
            id="history-to"
            type="date"
            value={dateTo}
            onChange={(event) => setDateTo(event.target.value)}
          />
        </div>
      </div>
      <details open={Boolean(search.location || search.bbox)}>
        <summary>Place</summary>
        <fieldset className="history-place">
          <legend>Near a place</legend>
          <div>
            <label htmlFor="history-lat">Latitude</label>
            <input
              id="history-lat"
              inputMode="decimal"
              value={latitude}
              onChange={(event) => setPart(0, event.target.value)}
            />
          </div>
          <div>
            <label htmlFor="history-lng">Longitude</label>
            <input
              id="history-lng"
              inputMode="decimal"
              value={longitude}
              onChange={(event) => setPart(1, event.target.value)}
            />
          </div>
          <div>
            <label htmlFor="history-radius">Radius (km)</label>
            <input
              id="history-radius"
              inputMode="decimal"
              value={radius}
              onChange={(event) => setPart(2, event.target.value)}
            />
          </div>
        </fieldset>
        <label htmlFor="history-bbox">Inside a box</label>
        <input
          id="history-bbox"
          value={bbox}
          placeholder="south,west,north,east"
          aria-describedby="history-bbox-help"
          onChange={(event) => setBbox(event.target.value)}
        />
        <p id="history-bbox-help" className="muted">
          Decimal degrees, <code>south,west,north,east</code>; west greater than east crosses the
          antimeridian. A case&apos;s place is where its target really was once verified, else where
          the work pointed.
        </p>
      </details>
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      <div className="actions">
        <button type="submit">Search</button>
        <button
          type="button"
          onClick={() => {
            setProblem(null);
            onSearch({});
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
