import type { CreateDowsingQuery, DowsingFilters } from '@sas/sdk';
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
  InputField,
  NO_BLIND_WORK,
  Options,
  percent,
  SelectField,
  Status,
  TextareaField,
  words,
} from './common';
import { PerPageFilter, SelectFilter, useSearchUpdate, WorkList } from './list';
import { dowsingSearch, QUERY_STATUSES as STATUSES, QUERY_TYPES, VARIANTS } from './search';

const listRoute = getRouteApi('/dowsing');

const PRECISION = ['standard', 'high', 'maximum'] as const;
const TIMEFRAMES = ['past', 'present', 'future'] as const;

/** Dowsing queries: ask one, and the list with the v2 filters, a page at a time. */
export function DowsingQueriesPage() {
  return (
    <>
      <h1>Dowsing queries</h1>
      <AskForm />
      <QueryList />
    </>
  );
}

type QueryType = CreateDowsingQuery['query_type'];

function AskForm() {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [queryType, setQueryType] = useState<QueryType>('yes_no');
  const [question, setQuestion] = useState('');
  const [precision, setPrecision] = useState('');
  const [timeframe, setTimeframe] = useState('');
  const [latitude, setLatitude] = useState('');
  const [longitude, setLongitude] = useState('');
  const [radius, setRadius] = useState('');
  const [options, setOptions] = useState('');
  const [blind, setBlind] = useState<BlindWork>(NO_BLIND_WORK);
  const ask = useMutation({
    mutationFn: (body: CreateDowsingQuery) => client.dowsing.create(body),
    onSuccess: async (asked) => {
      await queryClient.invalidateQueries({ queryKey: ['dowsing-queries', tokens.mode] });
      await navigate({ to: '/dowsing/$queryId', params: { queryId: asked.query_id } });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const choices = options
      .split('\n')
      .map((option) => option.trim())
      .filter(Boolean);
    const located = latitude !== '' || longitude !== '' || radius !== '';
    const context: NonNullable<CreateDowsingQuery['context']> = {
      ...(timeframe ? { timeframe: timeframe as 'past' | 'present' | 'future' } : {}),
      ...(located
        ? {
            location: {
              latitude: Number(latitude),
              longitude: Number(longitude),
              radius_meters: Number(radius),
            },
          }
        : {}),
      ...(queryType === 'information' && choices.length
        ? { parameters: { options: choices } }
        : {}),
    };
    ask.mutate({
      query_type: queryType,
      question,
      ...(precision ? { precision_level: precision as CreateDowsingQuery['precision_level'] } : {}),
      ...(Object.keys(context).length ? { context } : {}),
      ...blindWorkFields(blind),
    });
  };
  const error = ask.error;
  return (
    <section aria-labelledby="new-query">
      <h2 id="new-query">Ask a question</h2>
      <form className="work-form" onSubmit={submit} noValidate>
        <SelectField
          label="Kind of question"
          fields={['query_type']}
          error={error}
          value={queryType}
          onChange={setQueryType}
        >
          <option value="yes_no">Yes or no</option>
          <option value="information">Information (choose among options)</option>
          <option value="location">Location (within a search circle)</option>
        </SelectField>
        <InputField
          label="Question"
          fields={['question']}
          error={error}
          value={question}
          onChange={setQuestion}
        />
        <SelectField
          label="Precision"
          fields={['precision_level']}
          error={error}
          value={precision}
          onChange={setPrecision}
        >
          <option value="">Default (standard)</option>
          <Options values={PRECISION} />
        </SelectField>
        <SelectField
          label="Timeframe (optional)"
          fields={['context.timeframe']}
          error={error}
          value={timeframe}
          onChange={setTimeframe}
        >
          <Options values={TIMEFRAMES} any="Not given" />
        </SelectField>
        {queryType === 'information' && (
          <TextareaField
            label="Options"
            fields={['context.parameters.options', 'context.parameters']}
            error={error}
            hint="One a line, 2 to 100: the answer is one of them."
            rows={4}
            cols={40}
            value={options}
            onChange={setOptions}
          />
        )}
        <fieldset>
          <legend>Search circle {queryType === 'location' ? '(required)' : '(optional)'}</legend>
          <InputField
            label="Latitude"
            fields={['context.location.latitude', 'context.location']}
            error={error}
            type="number"
            step="any"
            value={latitude}
            onChange={setLatitude}
          />
          <InputField
            label="Longitude"
            fields={['context.location.longitude']}
            error={error}
            type="number"
            step="any"
            value={longitude}
            onChange={setLongitude}
          />
          <InputField
            label="Radius in metres"
            fields={['context.location.radius_meters']}
            error={error}
            type="number"
            min={1}
            value={radius}
            onChange={setRadius}
          />
        </fieldset>
        <BlindWorkFields value={blind} onChange={setBlind} error={error} done="answers at once" />
        <div className="work-form-actions">
          <button type="submit" disabled={ask.isPending}>
            {ask.isPending ? 'Asking…' : 'Ask'}
          </button>
        </div>
        {error && <ApiError error={error} />}
      </form>
    </section>
  );
}

function QueryList() {
  const { client, tokens } = useSession();
  const search = listRoute.useSearch();
  const update = useSearchUpdate('/dowsing', search, dowsingSearch);
  const filters: DowsingFilters = {
    per_page: search.per_page ?? 25,
    ...(search.query_type ? { query_type: search.query_type as DowsingFilters['query_type'] } : {}),
    ...(search.status ? { status: search.status as DowsingFilters['status'] } : {}),
    ...(search.variant ? { variant: search.variant as DowsingFilters['variant'] } : {}),
  };
  const pages = useCursorPages(['dowsing-queries', tokens.mode, filters], (cursor) =>
    client.dowsing.list(filters).page(cursor),
  );
  return (
    <WorkList
      id="query-list"
      heading="Your questions"
      filtersLabel="Filter dowsing queries"
      filters={
        <>
          <SelectFilter
            label="Kind"
            value={search.query_type}
            values={QUERY_TYPES}
            any="Any kind"
            onChange={(query_type) => update({ query_type })}
          />
          <SelectFilter
            label="Status"
            value={search.status}
            values={STATUSES}
            any="Any status"
            onChange={(status) => update({ status })}
          />
          <SelectFilter
            label="Variant"
            value={search.variant}
            values={VARIANTS}
            any="Any variant"
            onChange={(variant) => update({ variant })}
          />
          <PerPageFilter value={search.per_page} onChange={(per_page) => update({ per_page })} />
        </>
      }
      pages={pages}
      filtered={Object.keys(filters).length > 1}
      empty={{
        filtered: 'No question matches these filters. Clear a filter to see more.',
        none: 'No dowsing queries yet in this mode. Ask one with the form above, or from the API.',
      }}
      caption="Dowsing queries, newest first"
      columns={[
        { label: 'Question' },
        { label: 'Kind' },
        { label: 'Variant' },
        { label: 'Status' },
        { label: 'Answer' },
        { label: 'Confidence', number: true },
        { label: 'Asked' },
      ]}
      rowKey={(query) => query.query_id}
      row={(query) => (
        <>
          <th scope="row">
            <Link to="/dowsing/$queryId" params={{ queryId: query.query_id }}>
              {query.question}
            </Link>
          </th>
          <td>{words(query.query_type)}</td>
          <td>{words(query.variant)}</td>
          <td>
            <Status value={query.status} />
          </td>
          <td>{query.result?.answer ?? '–'}</td>
          <td className="work-number">{query.result ? percent(query.result.confidence) : '–'}</td>
          <td>{dateTime(query.created_at)}</td>
        </>
      )}
      pagerLabel="Dowsing queries"
    />
  );
}
