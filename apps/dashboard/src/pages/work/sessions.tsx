import type { CreateSession, SessionFilters } from '@sas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { useCursorPages } from '../../components/cursor-pages';
import {
  type BlindWork,
  blindWorkFields,
  BlindWorkFields,
  dateTime,
  Field,
  InputField,
  NO_BLIND_WORK,
  Options,
  percent,
  SelectField,
  Status,
  words,
} from './common';
import { PerPageFilter, SelectFilter, useSearchUpdate, WorkList } from './list';
import { SESSION_STATUSES, SESSION_TYPES, sessionSearch } from './search';

const listRoute = getRouteApi('/sessions');

const TYPES = SESSION_TYPES;
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
  const [blind, setBlind] = useState<BlindWork>(NO_BLIND_WORK);
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
      ...blindWorkFields(blind),
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
        <SelectField
          label="Modality (optional)"
          fields={['modality']}
          error={error}
          value={modality}
          onChange={setModality}
        >
          <Options values={MODALITIES} any="Default" />
        </SelectField>
        <InputField
          label="Duration in minutes (optional)"
          fields={['duration_minutes']}
          error={error}
          hint="5 to 180"
          type="number"
          inputMode="numeric"
          value={duration}
          onChange={setDuration}
        />
        <SelectField
          label="Privacy (optional)"
          fields={['privacy_level']}
          error={error}
          value={privacy}
          onChange={setPrivacy}
        >
          <Options values={PRIVACY} any="Default" />
        </SelectField>
        <BlindWorkFields
          value={blind}
          onChange={setBlind}
          error={error}
          done="completes in seconds"
        />
        <div className="work-form-actions">
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
  const search = listRoute.useSearch();
  const update = useSearchUpdate('/sessions', search, sessionSearch);
  // Typed filters go to the address when complete (Enter or leaving the field), not per key.
  const [minConfidence, setMinConfidence] = useState(search.min_confidence?.toString() ?? '');
  const [analystId, setAnalystId] = useState(search.analyst_id ?? '');
  const applyTyped = () =>
    update({
      min_confidence: minConfidence === '' ? undefined : Number(minConfidence),
      analyst_id: analystId.trim() || undefined,
    });
  const filters: SessionFilters = {
    per_page: search.per_page ?? 25,
    ...(search.status ? { status: search.status } : {}),
    ...(search.type ? { type: search.type } : {}),
    ...(search.created_after ? { created_after: search.created_after } : {}),
    ...(search.min_confidence !== undefined
      ? { 'confidence_score[gte]': search.min_confidence / 100 }
      : {}),
    ...(search.analyst_id ? { analyst_id: search.analyst_id } : {}),
  };
  const pages = useCursorPages(['sessions', tokens.mode, filters], (cursor) =>
    client.sessions.list(filters).page(cursor),
  );
  return (
    <WorkList
      id="session-list"
      heading="Your sessions"
      filtersLabel="Filter sessions"
      onApply={applyTyped}
      filters={
        <>
          <SelectFilter
            label="Status"
            value={search.status}
            values={SESSION_STATUSES}
            any="Any status"
            onChange={(status) => update({ status })}
          />
          <SelectFilter
            label="Type"
            value={search.type}
            values={SESSION_TYPES}
            any="Any type"
            onChange={(type) => update({ type })}
          />
          <Field label="Created after" fields={[]}>
            {(props) => (
              <input
                {...props}
                type="date"
                value={search.created_after ?? ''}
                onChange={(event) => update({ created_after: event.target.value || undefined })}
              />
            )}
          </Field>
          <InputField
            label="Confidence at least (%)"
            fields={[]}
            type="number"
            min={0}
            max={100}
            step={1}
            value={minConfidence}
            onChange={setMinConfidence}
            onBlur={applyTyped}
          />
          <InputField
            label="Analyst id"
            fields={[]}
            placeholder="analyst_…"
            value={analystId}
            onChange={setAnalystId}
            onBlur={applyTyped}
          />
          <PerPageFilter value={search.per_page} onChange={(per_page) => update({ per_page })} />
          <button type="submit" className="visually-hidden" tabIndex={-1}>
            Apply filters
          </button>
        </>
      }
      pages={pages}
      filtered={Object.keys(filters).length > 1}
      empty={{
        filtered: 'No session matches these filters. Clear a filter to see more.',
        none: 'No sessions yet in this mode. Start one with the form above, or from the API.',
      }}
      caption="Sessions, newest first"
      columns={[
        { label: 'Session' },
        { label: 'Type' },
        { label: 'Status' },
        { label: 'Progress', number: true },
        { label: 'Confidence', number: true },
        { label: 'Created' },
      ]}
      rowKey={(session) => session.session_id}
      row={(session) => (
        <>
          <th scope="row">
            <Link to="/sessions/$sessionId" params={{ sessionId: session.session_id }}>
              <code>{session.session_id}</code>
            </Link>
          </th>
          <td>{words(session.type)}</td>
          <td>
            <Status value={session.status} />
          </td>
          <td className="work-number">{session.progress} %</td>
          <td className="work-number">
            {session.results ? percent(session.results.confidence_score) : '–'}
          </td>
          <td>{dateTime(session.created_at)}</td>
        </>
      )}
      pagerLabel="Sessions"
    />
  );
}
