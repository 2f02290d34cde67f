import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { ConfirmButton, Facts, ProgressBar, Status, useLiveProgress, words } from './common';

/** The three lists of work, where a deleted piece of work leads back to. */
type ListPath = '/sessions' | '/analyses' | '/dowsing';

/** Why work failed, as the status line says it. */
export const failure = (reason: string | null | undefined, message?: string | null) =>
  `Failed${reason ? `: ${words(reason)}` : ''}${message ? ` (${message})` : ''}.`;

/** The engine that did the work, with its version when known. */
export const engine = (metadata: { engine: string; engine_version?: string | null }) =>
  `${metadata.engine}${metadata.engine_version ? ` (${metadata.engine_version})` : ''}`;

/**
 * One piece of work read by its id and followed live while it runs, with
 * the mutations that end it: cancel (where the API has it) and delete,
 * which goes back to the list.
 */
export function useWork<T extends { status: string; progress?: number }>({
  kind,
  list,
  listPath,
  id,
  get,
  remove,
  cancel,
}: {
  /** The query key's first part for this work ('session'). */
  kind: string;
  /** The list's query key's first part ('sessions'), read again when the work changes. */
  list: string;
  listPath: ListPath;
  id: string;
  get: () => Promise<T>;
  remove: () => Promise<void>;
  /** `returnsWork`: the API answers with the cancelled work itself, else it is read again. */
  cancel?: { run: () => Promise<unknown>; returnsWork: boolean };
}) {
  const { tokens } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const key = [kind, tokens.mode, id];
  const listKey = [list, tokens.mode];
  const query = useQuery({ queryKey: key, queryFn: get });
  const live = useLiveProgress(query.data, id, key, () => {
    void queryClient.invalidateQueries({ queryKey: listKey });
  });
  const cancelled = useMutation({
    mutationFn: () => (cancel ? cancel.run() : Promise.resolve()),
    onSuccess: (answer) =>
      cancel?.returnsWork
        ? queryClient.setQueryData(key, answer)
        : queryClient.invalidateQueries({ queryKey: key }),
  });
  const removed = useMutation({
    mutationFn: remove,
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: key });
      await queryClient.invalidateQueries({ queryKey: listKey });
      await navigate({ to: listPath });
    },
  });
  const data = query.data;
  const running = data !== undefined && data.status !== 'completed' && data.status !== 'failed';
  return {
    query,
    running,
    progress: Math.max(live ?? 0, data?.progress ?? 0),
    cancel: cancel ? cancelled : undefined,
    remove: removed,
  };
}

export type Work<T extends { status: string; progress?: number }> = ReturnType<typeof useWork<T>>;

/** A piece of work's page: the way back, its heading, and its content once read. */
export function WorkPage<T>({
  back,
  title,
  query,
  children,
}: {
  back: { to: ListPath; label: string };
  title: ReactNode;
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
}) {
  return (
    <>
      <p>
        <Link to={back.to}>{back.label}</Link>
      </p>
      <h1>{title}</h1>
      {query.isPending && <p>Loading…</p>}
      {query.isError && <ApiError error={query.error} />}
      {query.data && children(query.data)}
    </>
  );
}

/**
 * Where a piece of work stands: its status line, its progress (where it has
 * one), its facts, and the buttons that cancel or delete it.
 */
export function WorkStatus<T extends { status: string; progress?: number }>({
  id,
  heading,
  work,
  status,
  message,
  progressLabel,
  facts,
  noun,
  deleteQuestion,
}: {
  id: string;
  heading: ReactNode;
  work: Work<T>;
  status: string;
  /** What the status line says after the badge. */
  message: ReactNode;
  /** The progress bar's name; no bar without it. */
  progressLabel?: string;
  facts: [string, ReactNode][];
  /** The work as the buttons name it: "Cancel session", "Delete session". */
  noun: string;
  deleteQuestion: string;
}) {
  const { cancel, remove } = work;
  const deleteButton = (
    <ConfirmButton
      label={`Delete ${noun}`}
      question={deleteQuestion}
      confirmLabel="Yes, delete it"
      pending={remove.isPending}
      onConfirm={() => remove.mutate()}
    />
  );
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{heading}</h2>
      <p role="status">
        <Status value={status} /> {message}
      </p>
      {progressLabel && (
        <ProgressBar label={progressLabel} value={status === 'completed' ? 100 : work.progress} />
      )}
      <Facts rows={facts} />
      {cancel ? (
        <div className="actions">
          {work.running && (
            <button
              type="button"
              className="danger"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate()}
            >
              Cancel {noun}
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
