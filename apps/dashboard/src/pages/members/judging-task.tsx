import type { JudgingTask } from '@sas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { type DragEvent, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { BlobImage } from '../../components/blob-image';
import { absoluteTime, KIND_LABELS, lastSegment } from './format';
import { TASK_STATUS_LABELS } from './judging-tasks';
import './members.css';

const route = getRouteApi('/judging/$taskId');

type Candidate = JudgingTask['candidates'][number];

/** A judging task: the submissions under judgement, the candidates side by side, the ranking. */
export function JudgingTaskPage() {
  const { taskId } = route.useParams();
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const queryKey = ['judging-task', tokens.mode, taskId];
  const task = useQuery({ queryKey, queryFn: () => client.judgingTasks.get(taskId) });

  if (task.isPending || task.isError) {
    return (
      <>
        <h1>Judging task</h1>
        {task.isPending ? <p>Loading…</p> : <ApiError error={task.error} />}
        <p>
          <Link to="/judging">Back to your judging tasks</Link>
        </p>
      </>
    );
  }
  const current = task.data;
  return (
    <>
      <p>
        <Link to="/judging">← Your judging tasks</Link>
      </p>
      <h1>Judging task</h1>
      <dl className="mw-facts">
        <dt>Kind of work</dt>
        <dd>{KIND_LABELS[current.kind]}</dd>
        <dt>Status</dt>
        <dd data-testid="task-status">{TASK_STATUS_LABELS[current.status]}</dd>
        <dt>Opened</dt>
        <dd>{absoluteTime(current.created_at)}</dd>
        {current.ranked_at && (
          <>
            <dt>Ranked</dt>
            <dd>{absoluteTime(current.ranked_at)}</dd>
          </>
        )}
      </dl>
      <Submissions task={current} />
      {current.status === 'pending' ? (
        <Ranking
          task={current}
          onRanked={(ranked) => {
            queryClient.setQueryData(queryKey, ranked);
            return queryClient.invalidateQueries({ queryKey: ['judging-tasks'] });
          }}
        />
      ) : (
        <Candidates task={current} />
      )}
    </>
  );
}

/** What the analysts submitted, anonymised (A, B, …). */
function Submissions({ task }: { task: JudgingTask }) {
  const { client, tokens } = useSession();
  return (
    <section aria-labelledby="submissions-heading">
      <h2 id="submissions-heading">What the analysts submitted</h2>
      {task.submissions.length === 0 && <p className="muted">No submissions.</p>}
      <div className="mw-side-by-side">
        {task.submissions.map((submission) => (
          <article key={submission.submission_id} className="mw-card">
            <h3>Submission {submission.submission_id}</h3>
            <dl className="mw-facts">
              <dt>Descriptors</dt>
              <dd>{submission.descriptors.join(', ') || 'None'}</dd>
              {submission.coordinates && (
                <>
                  <dt>Coordinates</dt>
                  <dd>
                    {submission.coordinates.latitude}, {submission.coordinates.longitude}
                  </dd>
                </>
              )}
              {submission.notes && (
                <>
                  <dt>Notes</dt>
                  <dd className="mw-notes">{submission.notes}</dd>
                </>
              )}
            </dl>
            {submission.sketches.map((sketch, index) => {
              const sketchId = lastSegment(sketch.url);
              return (
                <BlobImage
                  key={sketchId}
                  queryKey={['judging-sketch', tokens.mode, task.judging_task_id, sketchId]}
                  load={() => client.judgingTasks.sketch(task.judging_task_id, sketchId)}
                  alt={`Submission ${submission.submission_id}, sketch ${index + 1}`}
                  className="mw-sketch-image"
                />
              );
            })}
          </article>
        ))}
      </div>
    </section>
  );
}

/** A candidate's material: description, descriptors, place, photos. */
function CandidateBody({
  task,
  candidate,
  label,
}: {
  task: JudgingTask;
  candidate: Candidate;
  label: string;
}) {
  const { client, tokens } = useSession();
  return (
    <>
      <p>{candidate.description}</p>
      {candidate.descriptors.length > 0 && (
        <p className="muted">Descriptors: {candidate.descriptors.join(', ')}</p>
      )}
      {candidate.coordinates && (
        <p className="muted">
          Place: {candidate.coordinates.latitude}, {candidate.coordinates.longitude}
        </p>
      )}
      {candidate.photos.map((photo, index) => {
        const position = Number(lastSegment(photo.url));
        return (
          <BlobImage
            key={photo.url}
            queryKey={[
              'candidate-photo',
              tokens.mode,
              task.judging_task_id,
              candidate.candidate_id,
              position,
            ]}
            load={() =>
              client.judgingTasks.photo(task.judging_task_id, candidate.candidate_id, position)
            }
            alt={`${label}, photo ${index + 1}`}
            className="mw-photo"
          />
        );
      })}
    </>
  );
}

/** "Candidate 1", … in the order the API gave them (which says nothing of the truth). */
function labels(task: JudgingTask): Map<string, string> {
  return new Map(task.candidates.map((c, index) => [c.candidate_id, `Candidate ${index + 1}`]));
}

/** Once ranked (or cancelled): the candidates, in the judge's ranking when there is one. */
function Candidates({ task }: { task: JudgingTask }) {
  const names = labels(task);
  const byId = new Map(task.candidates.map((c) => [c.candidate_id, c]));
  const order = task.ranking ?? task.candidates.map((c) => c.candidate_id);
  return (
    <section aria-labelledby="candidates-heading">
      <h2 id="candidates-heading">{task.ranking ? 'Your ranking' : 'Candidates'}</h2>
      <ol
        className="mw-side-by-side mw-candidates"
        aria-label={task.ranking ? 'Your ranking' : 'Candidates'}
      >
        {order.map((id, index) => (
          <li key={id} className="mw-card">
            <h3>
              {task.ranking && <span className="mw-rank">{index + 1}. </span>}
              {names.get(id)}
            </h3>
            <CandidateBody task={task} candidate={byId.get(id)!} label={names.get(id)!} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Drag the candidates into order (or use Move up / Move down), best match first, then send. */
function Ranking({
  task,
  onRanked,
}: {
  task: JudgingTask;
  onRanked: (ranked: JudgingTask) => void;
}) {
  const { client } = useSession();
  const names = labels(task);
  const byId = new Map(task.candidates.map((c) => [c.candidate_id, c]));
  const [order, setOrder] = useState(() => task.candidates.map((c) => c.candidate_id));
  const [announcement, setAnnouncement] = useState('');
  const [dragging, setDragging] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const focusAfterMove = useRef<{ id: string; direction: 'up' | 'down' } | null>(null);
  const list = useRef<HTMLOListElement>(null);

  const rank = useMutation({
    mutationFn: () => client.judgingTasks.rank(task.judging_task_id, order),
    onSuccess: onRanked,
  });

  const move = (id: string, to: number) => {
    const from = order.indexOf(id);
    if (from === -1 || to < 0 || to >= order.length || from === to) return;
    const next = order.filter((other) => other !== id);
    next.splice(to, 0, id);
    setOrder(next);
    setConfirming(false);
    setAnnouncement(`${names.get(id)} moved to rank ${to + 1} of ${order.length}.`);
  };

  // Keep the keyboard where it was: on the moved candidate's button (or its other one at an end).
  useEffect(() => {
    const wanted = focusAfterMove.current;
    if (!wanted) return;
    focusAfterMove.current = null;
    const item = list.current?.querySelector<HTMLElement>(`[data-candidate="${wanted.id}"]`);
    const button =
      item?.querySelector<HTMLButtonElement>(`[data-move="${wanted.direction}"]:not(:disabled)`) ??
      item?.querySelector<HTMLButtonElement>('[data-move]:not(:disabled)');
    button?.focus();
  }, [order]);

  const drop = (event: DragEvent<HTMLLIElement>, targetId: string) => {
    event.preventDefault();
    const id = event.dataTransfer.getData('text/plain') || dragging;
    setDragging(null);
    if (id && byId.has(id)) move(id, order.indexOf(targetId));
  };

  return (
    <section aria-labelledby="ranking-heading">
      <h2 id="ranking-heading">Rank the candidates</h2>
      <p id="ranking-help" className="muted">
        Put the candidate that best matches the submissions first. Drag a candidate onto another's
        place, or use its Move up and Move down buttons.
      </p>
      <p className="visually-hidden" aria-live="polite" data-testid="ranking-announcement">
        {announcement}
      </p>
      <ol
        ref={list}
        className="mw-side-by-side mw-candidates"
        aria-label="Ranking, best match first"
        aria-describedby="ranking-help"
      >
        {order.map((id, index) => (
          <li
            key={id}
            data-candidate={id}
            data-testid="candidate"
            className={dragging === id ? 'mw-card mw-dragging' : 'mw-card'}
            draggable
            onDragStart={(event) => {
              event.dataTransfer.setData('text/plain', id);
              event.dataTransfer.effectAllowed = 'move';
              setDragging(id);
            }}
            onDragEnd={() => setDragging(null)}
            onDragOver={(event) => {
              event.preventDefault();
              event.dataTransfer.dropEffect = 'move';
            }}
            onDrop={(event) => drop(event, id)}
          >
            <h3>
              <span className="mw-rank">{index + 1}. </span>
              {names.get(id)}
            </h3>
            <div className="mw-moves">
              <button
                type="button"
                data-move="up"
                disabled={index === 0}
                onClick={() => {
                  focusAfterMove.current = { id, direction: 'up' };
                  move(id, index - 1);
                }}
              >
                Move up <span className="visually-hidden">{names.get(id)}</span>
              </button>
              <button
                type="button"
                data-move="down"
                disabled={index === order.length - 1}
                onClick={() => {
                  focusAfterMove.current = { id, direction: 'down' };
                  move(id, index + 1);
                }}
              >
                Move down <span className="visually-hidden">{names.get(id)}</span>
              </button>
            </div>
            <CandidateBody task={task} candidate={byId.get(id)!} label={names.get(id)!} />
          </li>
        ))}
      </ol>
      {!confirming ? (
        <button type="button" onClick={() => setConfirming(true)}>
          Submit ranking…
        </button>
      ) : (
        <div className="mw-confirm" role="group" aria-labelledby="confirm-ranking">
          <p id="confirm-ranking">
            Send this ranking ({order.map((id) => names.get(id)).join(', ')})? A task is ranked
            once: it cannot be changed afterwards.
          </p>
          <div className="actions">
            <button type="button" disabled={rank.isPending} onClick={() => rank.mutate()}>
              {rank.isPending ? 'Sending…' : 'Yes, send the ranking'}
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep ranking
            </button>
          </div>
        </div>
      )}
      {rank.isError && <ApiError error={rank.error} />}
    </section>
  );
}
