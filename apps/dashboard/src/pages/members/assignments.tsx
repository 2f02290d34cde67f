import type { AssignmentFilters } from '@sas/sdk';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useSession } from '../../auth/session';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import { Deadline } from './deadline';
import { KIND_LABELS } from './format';
import './members.css';

const STATUSES = [
  'assigned',
  'submitted',
  'completed',
  'declined',
  'expired',
  'cancelled',
] as const;
const KINDS = ['session', 'analysis', 'dowsing'] as const;

export const STATUS_LABELS: Record<(typeof STATUSES)[number], string> = {
  assigned: 'Assigned: to do',
  submitted: 'Submitted',
  completed: 'Completed',
  declined: 'Declined',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

/** The signed-in analyst's own assignments, blind: reference number, kind, status, deadline. */
export function AssignmentsPage() {
  const { client, tokens, can } = useSession();
  const [status, setStatus] = useState<AssignmentFilters['status'] | ''>('');
  const [kind, setKind] = useState<AssignmentFilters['kind'] | ''>('');
  const filters: AssignmentFilters = {
    ...(status ? { status } : {}),
    ...(kind ? { kind } : {}),
  };
  const pages = useCursorPages(['assignments', tokens.mode, filters], (cursor) =>
    client.assignments.list(filters).page(cursor),
  );
  const filtered = status !== '' || kind !== '';
  return (
    <>
      <h1>Assignments</h1>
      <p className="muted">
        Your blind work: each assignment shows a random reference number, never the target. The
        target is revealed once the work is closed.
      </p>
      {!can('analyst') && (
        <p role="status">
          You do not have the analyst role, so nobody can give you assignments. Ask an admin of your
          organisation if you should have it.
        </p>
      )}
      <form
        className="mw-filters"
        aria-label="Filter assignments"
        onSubmit={(e) => e.preventDefault()}
      >
        <label>
          Status{' '}
          <select
            value={status}
            onChange={(event) => setStatus(event.target.value as typeof status)}
          >
            <option value="">Any status</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {STATUS_LABELS[value]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Kind{' '}
          <select value={kind} onChange={(event) => setKind(event.target.value as typeof kind)}>
            <option value="">Any kind</option>
            {KINDS.map((value) => (
              <option key={value} value={value}>
                {KIND_LABELS[value]}
              </option>
            ))}
          </select>
        </label>
      </form>
      {pages.query.isSuccess && pages.items.length === 0 && (
        <p>
          {filtered
            ? 'No assignments match these filters. Choose "Any status" and "Any kind" to see them all.'
            : 'No assignments yet. When your organisation gives you blind work it appears here, with its deadline.'}
        </p>
      )}
      {pages.items.length > 0 && (
        <table>
          <caption className="visually-hidden">Your assignments</caption>
          <thead>
            <tr>
              <th scope="col">Reference number</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col">Deadline</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((assignment) => (
              <tr key={assignment.assignment_id}>
                <th scope="row">
                  <Link
                    to="/assignments/$assignmentId"
                    params={{ assignmentId: assignment.assignment_id }}
                  >
                    {assignment.target_reference_number}
                  </Link>
                </th>
                <td>
                  {KIND_LABELS[assignment.kind]}
                  {assignment.question_type && (
                    <span className="muted">
                      {' '}
                      ({assignment.question_type.replaceAll('_', ' ')})
                    </span>
                  )}
                </td>
                <td>{STATUS_LABELS[assignment.status]}</td>
                <td>
                  <Deadline iso={assignment.deadline} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager pages={pages} label="Assignments" />
    </>
  );
}
