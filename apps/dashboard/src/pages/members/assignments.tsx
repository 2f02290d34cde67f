import type { AssignmentFilters } from '@sas/sdk';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useSession } from '../../auth/session';
import { useCursorPages } from '../../components/cursor-pages';
import { PagedTable } from '../../components/paged-table';
import { Choice } from './choice';
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
  const [status, setStatus] = useState<NonNullable<AssignmentFilters['status']> | ''>('');
  const [kind, setKind] = useState<NonNullable<AssignmentFilters['kind']> | ''>('');
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
        <Choice
          label="Status"
          value={status}
          onChange={setStatus}
          values={STATUSES}
          labels={STATUS_LABELS}
          any="Any status"
        />
        <Choice
          label="Kind"
          value={kind}
          onChange={setKind}
          values={KINDS}
          labels={KIND_LABELS}
          any="Any kind"
        />
      </form>
      <PagedTable
        pages={pages}
        empty={
          filtered
            ? 'No assignments match these filters. Choose "Any status" and "Any kind" to see them all.'
            : 'No assignments yet. When your organisation gives you blind work it appears here, with its deadline.'
        }
        caption="Your assignments"
        columns={[
          { label: 'Reference number' },
          { label: 'Kind' },
          { label: 'Status' },
          { label: 'Deadline' },
        ]}
        rowKey={(assignment) => assignment.assignment_id}
        row={(assignment) => (
          <>
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
                <span className="muted"> ({assignment.question_type.replaceAll('_', ' ')})</span>
              )}
            </td>
            <td>{STATUS_LABELS[assignment.status]}</td>
            <td>
              <Deadline iso={assignment.deadline} />
            </td>
          </>
        )}
        label="Assignments"
      />
    </>
  );
}
