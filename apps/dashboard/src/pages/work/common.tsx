import { SasError, type WorkRef } from '@sas/sdk';
import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useId, useState } from 'react';
import { useSession } from '../../auth/session';
import './work.css';

/** A share in [0, 1] as a percentage. */
export const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/** A 95 % interval of shares. */
export const interval = ([low, high]: readonly [number, number]) =>
  `${percent(low)} – ${percent(high)}`;

export const dateTime = (value: string | null | undefined) =>
  value ? new Date(value).toLocaleString() : '–';

export const words = (value: string) => value.replaceAll('_', ' ');

/** A p-value as people read it. */
export const pValue = (value: number) => (value < 0.0001 ? '< 0.0001' : value.toPrecision(2));

/** The field an API error names (`details.field`), and what is wrong with it. */
export function fieldIssue(error: unknown, ...fields: string[]): string | null {
  if (!(error instanceof SasError)) return null;
  const field = error.details.field;
  if (typeof field !== 'string') return null;
  if (!fields.some((name) => field === name || field.startsWith(`${name}.`))) return null;
  const issue = error.details.issue;
  return typeof issue === 'string' ? issue : error.message;
}

/**
 * A labelled form control with its hint and the API's complaint about it,
 * tied together with aria-describedby / aria-invalid.
 */
export function Field({
  label,
  hint,
  error,
  fields,
  children,
}: {
  label: string;
  hint?: ReactNode;
  /** The last API error, if any: shown here when it names one of `fields`. */
  error?: unknown;
  fields: string[];
  children: (props: {
    id: string;
    'aria-describedby'?: string;
    'aria-invalid'?: boolean;
  }) => ReactNode;
}) {
  const id = useId();
  const issue = error ? fieldIssue(error, ...fields) : null;
  const described = [hint ? `${id}-hint` : null, issue ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(described ? { 'aria-describedby': described } : {}),
        ...(issue ? { 'aria-invalid': true } : {}),
      })}
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      {issue && (
        <span id={`${id}-error`} className="field-error">
          {issue}
        </span>
      )}
    </div>
  );
}

/** A status as a small badge (its colour from the status, its meaning from the text). */
export function Status({ value }: { value: string }) {
  return <span className={`status status-${value}`}>{words(value)}</span>;
}

const TERMINAL = new Set(['completed', 'failed']);

/**
 * Follows unfinished work over the WebSocket (the SDK's waitFor) while the
 * page is open: the progress as it moves, and the finished work written into
 * the query cache so the page shows its results without reloading.
 */
export function useLiveProgress<T extends { status: string }>(
  work: T | undefined,
  ref: WorkRef,
  queryKey: QueryKey,
  onDone?: (finished: T) => void,
): number | null {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<number | null>(null);
  const running = work !== undefined && !TERMINAL.has(work.status);
  const id = typeof ref === 'string' ? ref : JSON.stringify(ref);
  const keyText = JSON.stringify(queryKey);
  useEffect(() => {
    if (!running) return;
    const controller = new AbortController();
    client
      .waitFor(ref, {
        signal: controller.signal,
        onProgress: (value) => {
          if (!controller.signal.aborted) setProgress(value);
        },
      })
      .then((finished) => {
        if (controller.signal.aborted) return;
        queryClient.setQueryData(queryKey, finished);
        onDone?.(finished as unknown as T);
      })
      .catch(() => {
        // Aborted on leaving the page, or the wait failed: read the work again either way.
        if (!controller.signal.aborted) void queryClient.invalidateQueries({ queryKey });
      });
    return () => controller.abort();
    // The work's id, the key and whether it still runs decide the subscription.
  }, [running, id, keyText, client]);
  return progress;
}

/** The progress bar of a piece of work, with an accessible name and the figure beside it. */
export function ProgressBar({ label, value }: { label: string; value: number }) {
  const clamped = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div className="progress">
      <progress aria-label={label} max={100} value={clamped} data-testid="work-progress">
        {clamped} %
      </progress>
      <span aria-hidden="true">{clamped} %</span>
    </div>
  );
}

/** A destructive button that asks first, in the page (keyboard and screen readers included). */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  pending,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  pending: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <div className="confirm" role="group" aria-label={question}>
      <p>{question}</p>
      <button
        type="button"
        className="danger"
        disabled={pending}
        onClick={onConfirm}
        // The question just appeared where the button was: the focus goes with it.
        autoFocus
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </div>
  );
}

/** A definition list of label / value rows, skipping the empty ones. */
export function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="facts">
      {rows
        .filter(([, value]) => value !== null && value !== undefined && value !== '')
        .map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

/** A link to the place on OpenStreetMap (no map tiles in the page: the CSP keeps images local). */
export function Place({ latitude, longitude }: { latitude: number; longitude: number }) {
  return (
    <a
      href={`https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=12/${latitude}/${longitude}`}
      target="_blank"
      rel="noreferrer"
    >
      {latitude.toFixed(5)}, {longitude.toFixed(5)}
      <span className="visually-hidden"> (opens OpenStreetMap in a new tab)</span>
    </a>
  );
}

/** Options of a select from an enumeration, with an "any" entry for filters. */
export function Options({ values, any }: { values: readonly string[]; any?: string }) {
  return (
    <>
      {any !== undefined && <option value="">{any}</option>}
      {values.map((value) => (
        <option key={value} value={value}>
          {words(value)}
        </option>
      ))}
    </>
  );
}

export const PER_PAGE = [10, 25, 50, 100] as const;
