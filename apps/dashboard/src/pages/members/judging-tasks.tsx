import type { JudgingTaskFilters } from '@sas/sdk';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useSession } from '../../auth/session';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import { absoluteTime, KIND_LABELS, relativeTime } from './format';
import './members.css';

export const TASK_STATUS_LABELS = {
  awaiting_judge: 'Awaiting a judge',
  pending: 'To rank',
  ranked: 'Ranked',
  cancelled: 'Cancelled',
} as const;

/** The signed-in judge's tasks: finished work to rank blind against decoys. */
export function JudgingTasksPage() {
  const { client, tokens, can } = useSession();
  const [status, setStatus] = useState<JudgingTaskFilters['status'] | ''>('');
  const filters: JudgingTaskFilters = status ? { status } : {};
  const pages = useCursorPages(['judging-tasks', tokens.mode, filters], (cursor) =>
    client.judgingTasks.list(filters).page(cursor),
  );
  return (
    <>
      <h1>Judging</h1>
      <p className="muted">
        Rank each task's candidates by how well they match what the analysts submitted. One of them
        is the real target; nothing says which.
      </p>
      {!can('judge') && (
        <p role="status">
          You do not have the judge role, so no judging tasks come to you. Ask an admin of your
          organisation if you should have it.
        </p>
      )}
      <form
        className="mw-filters"
        aria-label="Filter judging tasks"
        onSubmit={(e) => e.preventDefault()}
      >
        <label>
          Status{' '}
          <select
            value={status}
            onChange={(event) => setStatus(event.target.value as typeof status)}
          >
            <option value="">Any status</option>
            {(Object.keys(TASK_STATUS_LABELS) as (keyof typeof TASK_STATUS_LABELS)[]).map(
              (value) => (
                <option key={value} value={value}>
                  {TASK_STATUS_LABELS[value]}
                </option>
              ),
            )}
          </select>
        </label>
      </form>
      {pages.query.isSuccess && pages.items.length === 0 && (
        <p>
          {status
            ? 'No judging tasks in this status. Choose "Any status" to see them all.'
            : 'No judging tasks yet. When judged work you did not take part in completes, it comes here to rank.'}
        </p>
      )}
      {pages.items.length > 0 && (
        <table>
          <caption className="visually-hidden">Your judging tasks</caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col">Candidates</th>
              <th scope="col">Submissions</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((task) => (
              <tr key={task.judging_task_id}>
                <th scope="row">
                  <Link to="/judging/$taskId" params={{ taskId: task.judging_task_id }}>
                    {task.status === 'pending' ? 'Rank' : 'Open'} the task of{' '}
                    {absoluteTime(task.created_at)}
                  </Link>{' '}
                  <span className="muted">({relativeTime(task.created_at)})</span>
                </th>
                <td>{KIND_LABELS[task.kind]}</td>
                <td>{TASK_STATUS_LABELS[task.status]}</td>
                <td>{task.candidates.length}</td>
                <td>{task.submissions.length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager pages={pages} label="Judging tasks" />
    </>
  );
}
