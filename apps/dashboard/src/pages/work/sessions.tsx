import type { CreateSession, SessionFilters } from '@sas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import { dateTime, Field, Options, PER_PAGE, percent, Status, words } from './common';

const TYPES = ['remote_viewing', 'dowsing', 'automatic_writing'] as const;
const STATUSES = ['initiated', 'in_progress', 'completed', 'failed'] as const;
const MODALITIES = ['visual', 'kinesthetic', 'auditory'] as const;
const PRIVACY = ['private', 'public', 'classified'] as const;

/** Sessions: start one, and the list with the v2 filters, a page at a time. */
export function SessionsPage() {
  return (
    <>
      <h1>Sessions</h1>
      <CreateSessionForm />
      <SessionList />
    </>
  );
}

function CreateSessionForm() {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [type, setType] = useState<(typeof TYPES)[number]>('remote_viewing');
  const [target, setTarget] = useState('');
  const [modality, setModality] = useState('');
  const [duration, setDuration] = useState('');
  const [privacy, setPrivacy] = useState('');
  const [engine, setEngine] = useState('');
  const create = useMutation({
    mutationFn: (body: CreateSession) => client.sessions.create(body),
    onSuccess: async (session) => {
      await queryClient.invalidateQueries({ queryKey: ['sessions', tokens.mode] });
      queryClient.setQueryData(['session', tokens.mode, session.session_id], session);
      await navigate({ to: '/sessions/$sessionId', params: { sessionId: session.session_id } });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({
      type,
      target,
      ...(modality ? { modality: modality as CreateSession['modality'] } : {}),
      ...(duration ? { duration_minutes: Number(duration) } : {}),
      ...(privacy ? { privacy_level: privacy as CreateSession['privacy_level'] } : {}),
      ...(engine ? { engine: engine as CreateSession['engine'] } : {}),
    });
  };
  const error = create.error;
  return (
    <section aria-labelledby="new-session">
      <h2 id="new-session">Start a session</h2>
      <form className="work-form" onSubmit={submit} noValidate>
        <Field label="Type" fields={['type']} error={error}>
          {(props) => (
            <select
              {...props}
              value={type}
              onChange={(event) => setType(event.target.value as (typeof TYPES)[number])}
            >
              <Options values={TYPES} />
            </select>
          )}
        </Field>
        <Field
          label="Target"
          fields={['target']}
          error={error}
          hint="What the session is about, e.g. “Envelope 4711”. Never shown to analysts."
        >
          {(props) => (
            <input
              {...props}
              value={target}
              maxLength={1000}
              onChange={(event) => setTarget(event.target.value)}
            />
          )}
        </Field>
        <Field label="Modality (optional)" fields={['modality']} error={error}>
          {(props) => (
            <select
              {...props}
              value={modality}
              onChange={(event) => setModality(event.target.value)}
            >
              <Options values={MODALITIES} any="Default" />
            </select>
          )}
        </Field>
        <Field
          label="Duration in minutes (optional)"
          fields={['duration_minutes']}
          error={error}
          hint="5 to 180"
        >
          {(props) => (
            <input
              {...props}
              type="number"
              inputMode="numeric"
              value={duration}
              onChange={(event) => setDuration(event.target.value)}
            />
          )}
        </Field>
        <Field label="Privacy (optional)" fields={['privacy_level']} error={error}>
          {(props) => (
            <select {...props} value={privacy} onChange={(event) => setPrivacy(event.target.value)}>
              <Options values={PRIVACY} any="Default" />
            </select>
          )}
        </Field>
        <Field
          label="Engine"
          fields={['engine']}
          error={error}
          hint={
            tokens.mode === 'test'
              ? 'Test mode always runs the simulator, which completes in seconds.'
              : 'Analysts when your organisation has an active analyst, else the simulator.'
          }
        >
          {(props) => (
            <select
              {...props}
              value={engine}
              disabled={tokens.mode === 'test'}
              onChange={(event) => setEngine(event.target.value)}
            >
              <option value="">Default</option>
              <option value="analyst">Analysts (blind tasking)</option>
              <option value="simulated">Simulator</option>
            </select>
          )}
        </Field>
        <div className="form-actions">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Starting…' : 'Start session'}
          </button>
        </div>
        {error && <ApiError error={error} />}
      </form>
    </section>
  );
}

function SessionList() {
  const { client, tokens } = useSession();
  const [status, setStatus] = useState('');
  const [type, setType] = useState('');
  const [createdAfter, setCreatedAfter] = useState('');
  const [minConfidence, setMinConfidence] = useState('');
  const [analystId, setAnalystId] = useState('');
  const [perPage, setPerPage] = useState<number>(25);
  const filters: SessionFilters = {
    per_page: perPage,
    ...(status ? { status: status as SessionFilters['status'] } : {}),
    ...(type ? { type: type as SessionFilters['type'] } : {}),
    ...(createdAfter ? { created_after: createdAfter } : {}),
    ...(minConfidence !== '' ? { 'confidence_score[gte]': Number(minConfidence) / 100 } : {}),
    ...(analystId.trim() ? { analyst_id: analystId.trim() } : {}),
  };
  const pages = useCursorPages(['sessions', tokens.mode, filters], (cursor) =>
    client.sessions.list(filters).page(cursor),
  );
  const filtered = Object.keys(filters).length > 1;
  return (
    <section aria-labelledby="session-list">
      <h2 id="session-list">Your sessions</h2>
      <form className="filters" aria-label="Filter sessions" onSubmit={(e) => e.preventDefault()}>
        <Field label="Status" fields={[]}>
          {(props) => (
            <select {...props} value={status} onChange={(event) => setStatus(event.target.value)}>
              <Options values={STATUSES} any="Any status" />
            </select>
          )}
        </Field>
        <Field label="Type" fields={[]}>
          {(props) => (
            <select {...props} value={type} onChange={(event) => setType(event.target.value)}>
              <Options values={TYPES} any="Any type" />
            </select>
          )}
        </Field>
        <Field label="Created after" fields={[]}>
          {(props) => (
            <input
              {...props}
              type="date"
              value={createdAfter}
              onChange={(event) => setCreatedAfter(event.target.value)}
            />
          )}
        </Field>
        <Field label="Confidence at least (%)" fields={[]}>
          {(props) => (
            <input
              {...props}
              type="number"
              min={0}
              max={100}
              step={1}
              value={minConfidence}
              onChange={(event) => setMinConfidence(event.target.value)}
            />
          )}
        </Field>
        <Field label="Analyst id" fields={[]}>
          {(props) => (
            <input
              {...props}
              placeholder="analyst_…"
              value={analystId}
              onChange={(event) => setAnalystId(event.target.value)}
            />
          )}
        </Field>
        <Field label="Per page" fields={[]}>
          {(props) => (
            <select
              {...props}
              value={perPage}
              onChange={(event) => setPerPage(Number(event.target.value))}
            >
              {PER_PAGE.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      {pages.query.isSuccess && pages.items.length === 0 && (
        <p>
          {filtered
            ? 'No session matches these filters. Clear a filter to see more.'
            : 'No sessions yet in this mode. Start one with the form above, or from the API.'}
        </p>
      )}
      {pages.items.length > 0 && (
        <table>
          <caption className="visually-hidden">Sessions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col" className="number">
                Progress
              </th>
              <th scope="col" className="number">
                Confidence
              </th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((session) => (
              <tr key={session.session_id}>
                <th scope="row">
                  <Link to="/sessions/$sessionId" params={{ sessionId: session.session_id }}>
                    <code>{session.session_id}</code>
                  </Link>
                </th>
                <td>{words(session.type)}</td>
                <td>
                  <Status value={session.status} />
                </td>
                <td className="number">{session.progress} %</td>
                <td className="number">
                  {session.results ? percent(session.results.confidence_score) : '–'}
                </td>
                <td>{dateTime(session.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager pages={pages} label="Sessions" />
    </section>
  );
}
