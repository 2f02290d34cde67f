import type { CreateSession, Session } from '@sas/sdk';
import { Status } from '../common';
import { finishFact, WorkDetailPage } from '../detail';
import { dateTime, engine, words } from '../format';
import { confidenceColumn, createdColumn, type WorkKind } from '../kind';
import { WorkListPage } from '../list';
import { SESSION_FILTERS, SESSION_TYPES } from '../search';
import { SessionResults } from './session-results';

const sessions: WorkKind<Session, Session, CreateSession, Session> = {
  api: (client) => client.sessions,
  path: '/sessions',
  keys: { list: 'sessions', one: 'session' },
  link: (sessionId) => ({ to: '/sessions/$sessionId', params: { sessionId } }),
  title: 'Sessions',
  create: {
    id: 'new-session',
    heading: 'Start a session',
    form: [
      {
        name: 'type',
        as: 'select',
        label: 'Type',
        fields: ['type'],
        initial: 'remote_viewing',
        choices: { values: SESSION_TYPES },
      },
      {
        name: 'target',
        as: 'input',
        label: 'Target',
        fields: ['target'],
        hint: 'What the session is about, e.g. “Envelope 4711”. Never shown to analysts.',
        maxLength: 1000,
      },
      {
        name: 'modality',
        as: 'select',
        label: 'Modality (optional)',
        fields: ['modality'],
        choices: { values: ['visual', 'kinesthetic', 'auditory'], any: 'Default' },
      },
      {
        name: 'duration',
        as: 'input',
        label: 'Duration in minutes (optional)',
        fields: ['duration_minutes'],
        hint: '5 to 180',
        type: 'number',
        inputMode: 'numeric',
      },
      {
        name: 'privacy',
        as: 'select',
        label: 'Privacy (optional)',
        fields: ['privacy_level'],
        choices: { values: ['private', 'public', 'classified'], any: 'Default' },
      },
    ],
    body: (form) =>
      ({
        type: form.type,
        target: form.target,
        ...(form.modality ? { modality: form.modality } : {}),
        ...(form.duration ? { duration_minutes: Number(form.duration) } : {}),
        ...(form.privacy ? { privacy_level: form.privacy } : {}),
      }) as CreateSession,
    simulatorTakes: 'completes in seconds',
    submit: 'Start session',
    submitting: 'Starting…',
    created: (session) => session.session_id,
    answerIsWork: true,
  },
  list: {
    id: 'session-list',
    heading: 'Your sessions',
    filtersLabel: 'Filter sessions',
    filters: SESSION_FILTERS,
    empty: {
      filtered: 'No session matches these filters. Clear a filter to see more.',
      none: 'No sessions yet in this mode. Start one with the form above, or from the API.',
    },
    caption: 'Sessions, newest first',
    columns: [
      { label: 'Session', cell: (session) => <code>{session.session_id}</code> },
      { label: 'Type', cell: (session) => words(session.type) },
      { label: 'Status', cell: (session) => <Status value={session.status} /> },
      { label: 'Progress', number: true, cell: (session) => `${session.progress} %` },
      confidenceColumn((session) => session.results?.confidence_score),
      createdColumn(),
    ],
    idOf: (session) => session.session_id,
  },
  detail: {
    param: 'sessionId',
    title: { noun: 'Session', withId: true },
    statusId: 'session-status',
    running: (session) => `${words(session.current_phase)}: following it live…`,
    completed: 'Completed: the results are below.',
    progressLabel: 'Session progress',
    facts: (session, running) => [
      ['Type', words(session.type)],
      ['Modality', session.modality && words(session.modality)],
      ['Duration', `${session.duration_minutes} minutes`],
      ['Privacy', words(session.privacy_level)],
      ['Engine', engine(session.metadata)],
      ['Analysts', session.analyst_count],
      ['Created', dateTime(session.created_at)],
      finishFact(session, running),
      ['Merged from', session.merged_from?.join(', ')],
    ],
    noun: 'session',
    deleteQuestion: 'Delete this session and its results for good?',
    Sections: SessionResults,
  },
};

/** Sessions: start one, and the list with the v2 filters, a page at a time. */
export const SessionsPage = () => <WorkListPage kind={sessions} />;

/** One session: live progress while it runs, then its results and their statistics. */
export const SessionPage = () => <WorkDetailPage kind={sessions} />;
