import type { JudgingTaskFilters } from '@sas/sdk';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useSession } from '../../auth/session';
import { useCursorPages } from '../../components/cursor-pages';
import { PagedTable } from '../../components/paged-table';
import { Choice } from './choice';
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
  const [status, setStatus] = useState<NonNullable<JudgingTaskFilters['status']> | ''>('');
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
        <Choice
          label="Status"
          value={status}
          onChange={setStatus}
          values={Object.keys(TASK_STATUS_LABELS) as (keyof typeof TASK_STATUS_LABELS)[]}
          labels={TASK_STATUS_LABELS}
          any="Any status"
        />
      </form>
      <PagedTable
        pages={pages}
        empty={
          status
            ? 'No judging tasks in this status. Choose "Any status" to see them all.'
            : 'No judging tasks yet. When judged work you did not take part in completes, it comes here to rank.'
        }
        caption="Your judging tasks"
        columns={[
          { label: 'Task' },
          { label: 'Kind' },
          { label: 'Status' },
          { label: 'Candidates' },
          { label: 'Submissions' },
        ]}
        rowKey={(task) => task.judging_task_id}
        row={(task) => (
          <>
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
          </>
        )}
        label="Judging tasks"
      />
    </>
  );
}
