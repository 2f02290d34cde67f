import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { ConfirmButton, Facts, ProgressBar, Status, useLiveProgress } from './common';
import { dateTime, failure } from './format';
import type { LiveWork, WorkKind } from './kind';

/** When running work is expected to finish, or when it did. */
export const finishFact = (
  work: { estimated_completion?: string | null; completed_at?: string | null },
  running: boolean,
): [string, string] =>
  running
    ? ['Expected by', dateTime(work.estimated_completion)]
    : ['Completed', dateTime(work.completed_at)];

/**
 * One piece of a kind's work: the way back to the list, its heading, and once
 * read its status (live while it runs) and what the kind shows of it.
 */
export function WorkDetailPage<Item, Work extends LiveWork, Body, Created>({
  kind,
}: {
  kind: WorkKind<Item, Work, Body, Created>;
}) {
  const { detail } = kind;
  const id = useParams({ strict: false })[detail.param]!;
  const work = useWork(kind, id);
  const { query } = work;
  return (
    <>
      <p>
        <Link to={kind.path}>← All {kind.title.toLowerCase()}</Link>
      </p>
      <h1>
        {detail.title.withId ? (
          <>
            {detail.title.noun} <code>{id}</code>
          </>
        ) : (
          detail.title.noun
        )}
      </h1>
      {query.isPending && <p>Loading…</p>}
      {query.isError && <ApiError error={query.error} />}
      {query.data && (
        <>
          <WorkStatus kind={kind} work={work} data={query.data} />
          <detail.Sections work={query.data} />
        </>
      )}
    </>
  );
}

/**
 * One piece of work read by its id and followed live while it runs, with
 * the mutations that end it: cancel (where the API has it) and delete,
 * which goes back to the list.
 */
function useWork<Item, Work extends LiveWork, Body, Created>(
  kind: WorkKind<Item, Work, Body, Created>,
  id: string,
) {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const api = kind.api(client);
  const key = [kind.keys.one, tokens.mode, id];
  const listKey = [kind.keys.list, tokens.mode];
  const query = useQuery({ queryKey: key, queryFn: () => api.get(id) });
  const live = useLiveProgress(query.data, id, key, () => {
    void queryClient.invalidateQueries({ queryKey: listKey });
  });
  const cancelled = useMutation({
    mutationFn: async () => api.cancel?.(id),
    onSuccess: (answer) =>
      kind.detail.cancelReturnsWork
        ? queryClient.setQueryData(key, answer)
        : queryClient.invalidateQueries({ queryKey: key }),
  });
  const removed = useMutation({
    mutationFn: () => api.delete(id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: key });
      await queryClient.invalidateQueries({ queryKey: listKey });
      await navigate({ to: kind.path });
    },
  });
  const data = query.data;
  const running = data !== undefined && data.status !== 'completed' && data.status !== 'failed';
  return {
    query,
    running,
    progress: Math.max(live ?? 0, data?.progress ?? 0),
    cancel: api.cancel ? cancelled : undefined,
    remove: removed,
  };
}

/**
 * Where a piece of work stands: its status line, its progress (where it has
 * one), its facts, and the buttons that cancel or delete it.
 */
function WorkStatus<Item, Work extends LiveWork, Body, Created>({
  kind: { detail },
  work,
  data,
}: {
  kind: WorkKind<Item, Work, Body, Created>;
  work: ReturnType<typeof useWork<Item, Work, Body, Created>>;
  data: Work;
}) {
  const { cancel, remove, running } = work;
  const { status } = data;
  const deleteButton = (
    <ConfirmButton
      label={`Delete ${detail.noun}`}
      question={detail.deleteQuestion}
      confirmLabel="Yes, delete it"
      pending={remove.isPending}
      onConfirm={() => remove.mutate()}
    />
  );
  return (
    <section aria-labelledby={detail.statusId}>
      <h2 id={detail.statusId}>{detail.statusHeading?.(data) ?? 'Status'}</h2>
      <p role="status">
        <Status value={status} /> {running && detail.running(data)}
        {status === 'failed' && failure(data.failure_reason, data.failure_message)}
        {status === 'completed' && detail.completed}
      </p>
      {detail.progressLabel && (
        <ProgressBar
          label={detail.progressLabel}
          value={status === 'completed' ? 100 : work.progress}
        />
      )}
      <Facts rows={detail.facts(data, running)} />
      {cancel ? (
        <div className="actions">
          {running && (
            <button
              type="button"
              className="danger"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate()}
            >
              Cancel {detail.noun}
            </button>
          )}
          {deleteButton}
        </div>
      ) : (
        deleteButton
      )}
      {cancel?.isError && <ApiError error={cancel.error} />}
      {remove.isError && <ApiError error={remove.error} />}
    </section>
  );
}
