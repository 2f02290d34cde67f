import type { CreateDowsingQuery, DowsingQuery } from '@sas/sdk';
import { Status } from '../common';
import { WorkDetailPage } from '../detail';
import { dateTime, engine, words } from '../format';
import { confidenceColumn, createdColumn, type FormValues, type WorkKind } from '../kind';
import { WorkListPage } from '../list';
import { DOWSING_FILTERS, QUERY_TYPES } from '../search';
import { DowsingAnswer } from './dowsing-answer';

const information = (form: FormValues) => form.queryType === 'information';

function dowsingBody(form: FormValues) {
  const choices = form
    .options!.split('\n')
    .map((option) => option.trim())
    .filter(Boolean);
  const located = form.latitude !== '' || form.longitude !== '' || form.radius !== '';
  const context = {
    ...(form.timeframe ? { timeframe: form.timeframe } : {}),
    ...(located
      ? {
          location: {
            latitude: Number(form.latitude),
            longitude: Number(form.longitude),
            radius_meters: Number(form.radius),
          },
        }
      : {}),
    ...(information(form) && choices.length ? { parameters: { options: choices } } : {}),
  };
  return {
    query_type: form.queryType,
    question: form.question,
    ...(form.precision ? { precision_level: form.precision } : {}),
    ...(Object.keys(context).length ? { context } : {}),
  } as CreateDowsingQuery;
}

const dowsing: WorkKind<DowsingQuery, DowsingQuery, CreateDowsingQuery, { query_id: string }> = {
  api: (client) => client.dowsing,
  path: '/dowsing',
  keys: { list: 'dowsing-queries', one: 'dowsing-query' },
  link: (queryId) => ({ to: '/dowsing/$queryId', params: { queryId } }),
  title: 'Dowsing queries',
  create: {
    id: 'new-query',
    heading: 'Ask a question',
    form: [
      {
        name: 'queryType',
        as: 'select',
        label: 'Kind of question',
        fields: ['query_type'],
        initial: 'yes_no',
        choices: {
          values: QUERY_TYPES,
          labels: {
            yes_no: 'Yes or no',
            information: 'Information (choose among options)',
            location: 'Location (within a search circle)',
          },
        },
      },
      { name: 'question', as: 'input', label: 'Question', fields: ['question'] },
      {
        name: 'precision',
        as: 'select',
        label: 'Precision',
        fields: ['precision_level'],
        choices: { values: ['standard', 'high', 'maximum'], any: 'Default (standard)' },
      },
      {
        name: 'timeframe',
        as: 'select',
        label: 'Timeframe (optional)',
        fields: ['context.timeframe'],
        choices: { values: ['past', 'present', 'future'], any: 'Not given' },
      },
      {
        name: 'options',
        as: 'textarea',
        label: 'Options',
        fields: ['context.parameters.options', 'context.parameters'],
        hint: 'One a line, 2 to 100: the answer is one of them.',
        rows: 4,
        cols: 40,
        shown: information,
      },
      {
        legend: (form) =>
          `Search circle ${form.queryType === 'location' ? '(required)' : '(optional)'}`,
        controls: [
          {
            name: 'latitude',
            as: 'input',
            label: 'Latitude',
            fields: ['context.location.latitude', 'context.location'],
            type: 'number',
            step: 'any',
          },
          {
            name: 'longitude',
            as: 'input',
            label: 'Longitude',
            fields: ['context.location.longitude'],
            type: 'number',
            step: 'any',
          },
          {
            name: 'radius',
            as: 'input',
            label: 'Radius in metres',
            fields: ['context.location.radius_meters'],
            type: 'number',
            min: 1,
          },
        ],
      },
    ],
    body: dowsingBody,
    simulatorTakes: 'answers at once',
    submit: 'Ask',
    submitting: 'Asking…',
    created: (asked) => asked.query_id,
  },
  list: {
    id: 'query-list',
    heading: 'Your questions',
    filtersLabel: 'Filter dowsing queries',
    filters: DOWSING_FILTERS,
    empty: {
      filtered: 'No question matches these filters. Clear a filter to see more.',
      none: 'No dowsing queries yet in this mode. Ask one with the form above, or from the API.',
    },
    caption: 'Dowsing queries, newest first',
    columns: [
      { label: 'Question', cell: (query) => query.question },
      { label: 'Kind', cell: (query) => words(query.query_type) },
      { label: 'Variant', cell: (query) => words(query.variant) },
      { label: 'Status', cell: (query) => <Status value={query.status} /> },
      { label: 'Answer', cell: (query) => query.result?.answer ?? '–' },
      confidenceColumn((query) => query.result?.confidence),
      createdColumn('Asked'),
    ],
    idOf: (query) => query.query_id,
  },
  detail: {
    param: 'queryId',
    title: { noun: 'Dowsing query', withId: false },
    statusId: 'query-status',
    statusHeading: (query) => query.question,
    // People answer pending queries (the analyst engine): the page waits for them while open.
    running: () => 'Analysts are answering it; this page follows it.',
    facts: (query) => [
      ['Id', <code key="id">{query.query_id}</code>],
      ['Kind', words(query.query_type)],
      ['Variant', words(query.variant)],
      ['Precision', query.metadata.precision_level],
      ['Engine', engine(query.metadata)],
      ['Asked', dateTime(query.created_at)],
      ['Answered', query.completed_at && dateTime(query.completed_at)],
    ],
    noun: 'query',
    deleteQuestion: 'Delete this query and its answer for good?',
    Sections: DowsingAnswer,
  },
};

/** Dowsing queries: ask one, and the list with the v2 filters, a page at a time. */
export const DowsingQueriesPage = () => <WorkListPage kind={dowsing} />;

/** One dowsing query: its answer, the readings and the statistics with their intervals. */
export const DowsingQueryPage = () => <WorkDetailPage kind={dowsing} />;
