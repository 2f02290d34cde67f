import type { Api, HistoryCase } from '@sas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { formatDate, formatPoint, typeLabel, VERDICTS, verdictLabel } from './labels';
import './history.css';

type RecordOutcome = Api.RecordOutcomeDto;

const route = getRouteApi('/history/$caseId');

/** One case: what was asked, what came back, and (once known) what was really there. */
export function CasePage() {
  const { caseId } = route.useParams();
  const { client, tokens } = useSession();
  const historyCase = useQuery({
    queryKey: ['history-case', tokens.mode, caseId],
    queryFn: () => client.history.get(caseId),
  });
  return (
    <>
      <p>
        <Link to="/history">← Back to the search</Link>
      </p>
      {historyCase.isPending && (
        <>
          <h1>Case</h1>
          <p>Loading…</p>
        </>
      )}
      {historyCase.isError && (
        <>
          <h1>Case</h1>
          <ApiError error={historyCase.error} />
        </>
      )}
      {historyCase.data && <CaseDetail key={caseId} value={historyCase.data} />}
    </>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

const yesNo = (value: boolean | null | undefined) =>
  value === null || value === undefined ? 'Not known' : value ? 'Yes' : 'No';

const list = (items: readonly string[]) => (items.length > 0 ? items.join(', ') : '—');

function SourceLink({ source }: { source: NonNullable<HistoryCase['source']> }) {
  switch (source.type) {
    case 'session':
      return (
        <Link to="/sessions/$sessionId" params={{ sessionId: source.id }}>
          Session {source.id}
        </Link>
      );
    case 'analysis':
      return (
        <Link to="/analyses/$analysisId" params={{ analysisId: source.id }}>
          Analysis {source.id}
        </Link>
      );
    case 'dowsing_query':
      return (
        <Link to="/dowsing/$queryId" params={{ queryId: source.id }}>
          Dowsing query {source.id}
        </Link>
      );
  }
}

function CaseDetail({ value }: { value: HistoryCase }) {
  // Saves so far: the confirmation takes the focus after each (the form is rebuilt).
  const [saves, setSaves] = useState(0);
  const confirmation = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (saves > 0) confirmation.current?.focus();
  }, [saves]);
  return (
    <>
      <h1>{value.target}</h1>
      <p className="muted">
        Case <code>{value.case_id}</code> · {typeLabel(value.type)} ·{' '}
        {value.status === 'completed' ? 'completed' : 'failed'}
        {value.classified && ' · classified (never in searches, analytics or exports)'}
      </p>

      <section aria-labelledby="case-work">
        <h2 id="case-work">The work</h2>
        <dl className="case-facts">
          <Fact term="Date">{formatDate(value.date)}</Fact>
          <Fact term="Type">{typeLabel(value.type)}</Fact>
          <Fact term="How it ended">{value.status === 'completed' ? 'Completed' : 'Failed'}</Fact>
          <Fact term="Recorded from">
            {value.source ? (
              <SourceLink source={value.source} />
            ) : (
              <>
                Imported
                {value.external_id && (
                  <>
                    {' '}
                    as <code>{value.external_id}</code>
                  </>
                )}
              </>
            )}
          </Fact>
          <Fact term="Client">{value.client ?? '—'}</Fact>
          <Fact term="Analysts">{list(value.analysts)}</Fact>
          <Fact term="Modality">{value.process.modality ?? '—'}</Fact>
          <Fact term="Duration">
            {value.process.duration_minutes === null
              ? '—'
              : `${value.process.duration_minutes} minutes`}
          </Fact>
          <Fact term="Phases">{list(value.process.phases)}</Fact>
          <Fact term="Last changed">{formatDate(value.updated_at)}</Fact>
        </dl>
      </section>

      <section aria-labelledby="case-results">
        <h2 id="case-results">What came back</h2>
        <dl className="case-facts">
          <Fact term="Description">
            {value.results.description ? (
              <span className="case-description">{value.results.description}</span>
            ) : (
              '—'
            )}
          </Fact>
          <Fact term="Descriptors">{list(value.descriptors)}</Fact>
          <Fact term="Confidence">
            {value.confidence_score === null ? '—' : value.confidence_score.toFixed(2)}
          </Fact>
          <Fact term="Where the work pointed">{formatPoint(value.results.coordinates)}</Fact>
          <Fact term="Case location">{formatPoint(value.location)}</Fact>
        </dl>
      </section>

      <section aria-labelledby="case-outcome">
        <h2 id="case-outcome">Outcome</h2>
        {saves > 0 && (
          <p className="created" role="status" tabIndex={-1} ref={confirmation}>
            Outcome recorded: {verdictLabel(value.verdict)}, verified by {value.verified_by}.
          </p>
        )}
        {value.verdict === null ? (
          <p>No outcome recorded yet: the case is not verified.</p>
        ) : (
          <dl className="case-facts" data-testid="case-outcome">
            <Fact term="Verdict">
              <span className={`verdict verdict-${value.verdict}`}>
                {verdictLabel(value.verdict)}
              </span>
            </Fact>
            <Fact term="What really happened">{value.outcome ?? '—'}</Fact>
            <Fact term="Location found">{yesNo(value.results.location_found)}</Fact>
            <Fact term="True location">{formatPoint(value.verified_coordinates)}</Fact>
            <Fact term="Error distance">
              {value.error_distance_km === null ? '—' : `${value.error_distance_km.toFixed(1)} km`}
            </Fact>
            <Fact term="How it was verified">{value.results.verification ?? '—'}</Fact>
            <Fact term="Independently verified">
              {yesNo(value.validation.independent_verification)}
            </Fact>
            <Fact term="Accuracy confirmed">{yesNo(value.validation.accuracy_confirmed)}</Fact>
            <Fact term="Verified by">{value.verified_by ?? '—'}</Fact>
            <Fact term="Verified at">{formatDate(value.verified_at)}</Fact>
          </dl>
        )}
        {value.verdict === null && value.outcome && (
          <p>
            Outcome noted without a verdict: <q>{value.outcome}</q>
          </p>
        )}
      </section>

      {value.status === 'failed' ? (
        <p>This work failed: it gave nothing to verify, so no outcome can be recorded.</p>
      ) : (
        <OutcomeForm key={value.updated_at} value={value} onSaved={() => setSaves((n) => n + 1)} />
      )}
    </>
  );
}

/** A datetime-local value (local time, no zone) for an instant. */
function localInput(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function OutcomeForm({ value, onSaved }: { value: HistoryCase; onSaved: () => void }) {
  const { client, tokens, profile } = useSession();
  const queryClient = useQueryClient();
  const correcting = value.verdict !== null;
  const [verdict, setVerdict] = useState<RecordOutcome['verdict'] | ''>(value.verdict ?? '');
  const [outcome, setOutcome] = useState(value.outcome ?? '');
  const [locationFound, setLocationFound] = useState(
    value.results.location_found === null ? '' : String(value.results.location_found),
  );
  const [latitude, setLatitude] = useState(
    value.verified_coordinates ? String(value.verified_coordinates.latitude) : '',
  );
  const [longitude, setLongitude] = useState(
    value.verified_coordinates ? String(value.verified_coordinates.longitude) : '',
  );
  const [verification, setVerification] = useState(value.results.verification ?? '');
  const [independent, setIndependent] = useState(value.validation.independent_verification);
  const [accuracy, setAccuracy] = useState(value.validation.accuracy_confirmed);
  const [verifiedBy, setVerifiedBy] = useState(value.verified_by ?? profile.name ?? '');
  const [verifiedAt, setVerifiedAt] = useState(localInput(value.verified_at));
  const [problem, setProblem] = useState<string | null>(null);

  const record = useMutation({
    mutationFn: (body: RecordOutcome) => client.history.recordOutcome(value.case_id, body),
    onSuccess: (updated) => {
      queryClient.setQueryData(['history-case', tokens.mode, value.case_id], updated);
      onSaved();
      return queryClient.invalidateQueries({ queryKey: ['history-search'] });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (verdict === '') {
      setProblem('Choose a verdict: hit, partial or miss.');
      return;
    }
    const lat = latitude.trim();
    const lng = longitude.trim();
    if ((lat === '') !== (lng === '')) {
      setProblem('Give both coordinates of the true location, or neither.');
      return;
    }
    setProblem(null);
    record.mutate({
      verdict,
      verified_by: verifiedBy.trim(),
      outcome: outcome.trim() === '' ? null : outcome.trim(),
      location_found: locationFound === '' ? null : locationFound === 'true',
      coordinates: lat === '' ? null : { latitude: Number(lat), longitude: Number(lng) },
      verification: verification.trim() === '' ? null : verification.trim(),
      independent_verification: independent,
      accuracy_confirmed: accuracy,
      ...(verifiedAt === '' ? {} : { verified_at: new Date(verifiedAt).toISOString() }),
    });
  };

  return (
    <section aria-labelledby="record-outcome">
      <h2 id="record-outcome">{correcting ? 'Correct the outcome' : 'Record the outcome'}</h2>
      <p className="muted">
        What really happened. Hit rates count hits (a partial is not a hit); recording again
        replaces the outcome, and the earlier one stays in the audit trail.
      </p>
      <form className="form" onSubmit={submit}>
        <fieldset>
          <legend>Verdict (required)</legend>
          {VERDICTS.map((entry) => (
            <label key={entry.value} className="history-check">
              <input
                type="radio"
                name="verdict"
                value={entry.value}
                checked={verdict === entry.value}
                onChange={() => setVerdict(entry.value)}
              />
              {entry.label}
            </label>
          ))}
        </fieldset>
        <label htmlFor="outcome-text">What really happened</label>
        <textarea
          id="outcome-text"
          rows={3}
          value={outcome}
          onChange={(event) => setOutcome(event.target.value)}
        />
        <label htmlFor="outcome-found">Location found</label>
        <select
          id="outcome-found"
          value={locationFound}
          onChange={(event) => setLocationFound(event.target.value)}
        >
          <option value="">Not known</option>
          <option value="true">Yes</option>
          <option value="false">No</option>
        </select>
        <fieldset className="history-fields">
          <legend>Where the target really was (optional)</legend>
          <div>
            <label htmlFor="outcome-lat">Latitude</label>
            <input
              id="outcome-lat"
              inputMode="decimal"
              value={latitude}
              onChange={(event) => setLatitude(event.target.value)}
            />
          </div>
          <div>
            <label htmlFor="outcome-lng">Longitude</label>
            <input
              id="outcome-lng"
              inputMode="decimal"
              value={longitude}
              onChange={(event) => setLongitude(event.target.value)}
            />
          </div>
        </fieldset>
        <label htmlFor="outcome-verification">How it was verified</label>
        <input
          id="outcome-verification"
          value={verification}
          onChange={(event) => setVerification(event.target.value)}
        />
        <label className="history-check">
          <input
            type="checkbox"
            checked={independent}
            onChange={(event) => setIndependent(event.target.checked)}
          />
          Verified independently (by someone outside the team)
        </label>
        <label className="history-check">
          <input
            type="checkbox"
            checked={accuracy}
            onChange={(event) => setAccuracy(event.target.checked)}
          />
          Accuracy confirmed against the outcome
        </label>
        <label htmlFor="outcome-by">Verified by (required)</label>
        <input
          id="outcome-by"
          required
          value={verifiedBy}
          onChange={(event) => setVerifiedBy(event.target.value)}
        />
        <label htmlFor="outcome-at">Verified at (default: now)</label>
        <input
          id="outcome-at"
          type="datetime-local"
          value={verifiedAt}
          onChange={(event) => setVerifiedAt(event.target.value)}
        />
        {problem && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" disabled={record.isPending}>
          {record.isPending ? 'Saving…' : correcting ? 'Save the correction' : 'Record outcome'}
        </button>
      </form>
      {record.isError && <ApiError error={record.error} />}
    </section>
  );
}
