import type { AssignmentDetail } from '@sas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { BlobImage } from '../../components/blob-image';
import { STATUS_LABELS } from './assignments';
import { Deadline } from './deadline';
import { absoluteTime, KIND_LABELS } from './format';
import { Reveal } from './reveal';
import { SubmissionForm } from './submission-form';
import './members.css';

const route = getRouteApi('/assignments/$assignmentId');

/** One assignment, blind until the work is closed: submit, amend, decline; then the reveal. */
export function AssignmentPage() {
  const { assignmentId } = route.useParams();
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const queryKey = ['assignment', tokens.mode, assignmentId];
  const assignment = useQuery({
    queryKey,
    queryFn: () => client.assignments.get(assignmentId),
    // While the work is open, look again now and then: the reveal comes when it closes.
    refetchInterval: (query) =>
      query.state.data?.status === 'assigned' || query.state.data?.status === 'submitted'
        ? 5000
        : false,
  });
  const update = (next: AssignmentDetail) => {
    queryClient.setQueryData(queryKey, next);
    return queryClient.invalidateQueries({ queryKey: ['assignments'] });
  };

  if (assignment.isPending) {
    return (
      <>
        <h1>Assignment</h1>
        <p>Loading…</p>
      </>
    );
  }
  if (assignment.isError) {
    return (
      <>
        <h1>Assignment</h1>
        <ApiError error={assignment.error} />
        <p>
          <Link to="/assignments">Back to your assignments</Link>
        </p>
      </>
    );
  }
  const current = assignment.data;
  const open = current.status === 'assigned' || current.status === 'submitted';
  const { target, target_nonce } = current;
  return (
    <>
      <p>
        <Link to="/assignments">← Your assignments</Link>
      </p>
      <h1>Assignment {current.target_reference_number}</h1>
      <dl className="mw-facts">
        <dt>Target reference number</dt>
        <dd>{current.target_reference_number}</dd>
        <dt>Kind</dt>
        <dd>
          {KIND_LABELS[current.kind]}
          {current.question_type && ` (${current.question_type.replaceAll('_', ' ')})`}
        </dd>
        {current.modality && (
          <>
            <dt>Modality</dt>
            <dd>{current.modality}</dd>
          </>
        )}
        <dt>Time allowed</dt>
        <dd>{current.duration_minutes} minutes</dd>
        <dt>Deadline</dt>
        <dd>
          <Deadline iso={current.deadline} />
        </dd>
        <dt>Status</dt>
        <dd data-testid="assignment-status">{STATUS_LABELS[current.status]}</dd>
        {current.declined_at && (
          <>
            <dt>Declined</dt>
            <dd>{absoluteTime(current.declined_at)}</dd>
          </>
        )}
      </dl>

      {target !== null && target_nonce !== null && (
        <Reveal assignment={{ ...current, target, target_nonce }} />
      )}
      {target === null && open && (
        <p className="muted">
          Work blind: the target is revealed here once the work is closed. The reference number
          tells nothing of it.
        </p>
      )}

      {current.submission && <SubmittedWork assignment={current} />}
      {open && <SubmissionForm assignment={current} onSubmitted={(next) => void update(next)} />}
      {current.status === 'assigned' && <Decline assignment={current} onDeclined={update} />}
    </>
  );
}

/** What the analyst sent, with their sketches read back with their own token. */
function SubmittedWork({ assignment }: { assignment: AssignmentDetail }) {
  const { client, tokens } = useSession();
  const submission = assignment.submission!;
  return (
    <section aria-labelledby="submitted-heading">
      <h2 id="submitted-heading">What you submitted</h2>
      <dl className="mw-facts">
        <dt>Sent</dt>
        <dd>{absoluteTime(submission.submitted_at)}</dd>
        <dt>Descriptors</dt>
        <dd data-testid="submitted-descriptors">{submission.descriptors.join(', ')}</dd>
        <dt>Coordinates</dt>
        <dd>
          {submission.coordinates
            ? `${submission.coordinates.latitude}, ${submission.coordinates.longitude}`
            : 'None given'}
        </dd>
        {submission.notes && (
          <>
            <dt>Notes</dt>
            <dd className="mw-notes">{submission.notes}</dd>
          </>
        )}
        {submission.confidence !== null && (
          <>
            <dt>Your confidence</dt>
            <dd>{Math.round(submission.confidence * 100)} %</dd>
          </>
        )}
      </dl>
      {submission.sketches.length > 0 ? (
        <ul className="mw-sketches" aria-label="Your sketches">
          {submission.sketches.map((sketch, index) => (
            <li key={sketch.sketch_id}>
              <BlobImage
                queryKey={[
                  'assignment-sketch',
                  tokens.mode,
                  assignment.assignment_id,
                  sketch.sketch_id,
                ]}
                load={() => client.assignments.sketch(assignment.assignment_id, sketch.sketch_id)}
                alt={`Your sketch ${index + 1}`}
                className="mw-sketch-image"
              />
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No sketches sent.</p>
      )}
    </section>
  );
}

/** Declining, before submitting: with a reason, after confirming. */
function Decline({
  assignment,
  onDeclined,
}: {
  assignment: AssignmentDetail;
  onDeclined: (next: AssignmentDetail) => void;
}) {
  const { client } = useSession();
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const decline = useMutation({
    mutationFn: () =>
      client.assignments.decline(
        assignment.assignment_id,
        reason.trim() !== '' ? { reason: reason.trim() } : {},
      ),
    onSuccess: onDeclined,
  });
  const confirm = (event: FormEvent) => {
    event.preventDefault();
    decline.mutate();
  };
  return (
    <section aria-labelledby="decline-heading">
      <h2 id="decline-heading">Decline</h2>
      {!confirming ? (
        <>
          <p className="muted">
            If you cannot do this work, decline it: another analyst takes your place.
          </p>
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Decline this assignment…
          </button>
        </>
      ) : (
        <form className="form" onSubmit={confirm}>
          <label htmlFor="decline-reason">Reason (optional)</label>
          <textarea
            id="decline-reason"
            rows={2}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
          <p>Declining cannot be undone: you will not be able to submit for this work.</p>
          <div className="actions">
            <button type="submit" className="danger" disabled={decline.isPending}>
              Yes, decline
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep the assignment
            </button>
          </div>
          {decline.isError && <ApiError error={decline.error} />}
        </form>
      )}
    </section>
  );
}
